/* model: the CRDs' x-kubernetes-validations rules, one C function per rule
 * id in slinky.schema (the generated table links to them, so a rule without
 * an implementation does not build). `self` is the object the rule sits on,
 * with CRD defaults applied. A CEL evaluation error (a missing field read
 * without has()) fails the rule, as the API server does. Each returns 1 when
 * the rule holds. */
#include <string.h>

#include "model/internal.h"

int slinky_model__rule_slurm_key_unless_external(const slinky_doc_value *self);
int slinky_model__rule_jwt_key_unless_external(const slinky_doc_value *self);
int slinky_model__rule_external_config_when_external(const slinky_doc_value *self);
int slinky_model__rule_ha_needs_existing_claim(const slinky_doc_value *self);
int slinky_model__rule_scheduled_update_times(const slinky_doc_value *self);
int slinky_model__rule_jwt_key_set(const slinky_doc_value *self);

/* CEL has(self.key): present and not null. */
static bool has(const slinky_doc_value *v, const char *key)
{
    const slinky_doc_value *m = slinky_doc_value_get(v, key);
    return m && !slinky_doc_value_is_null(m);
}

static bool external(const slinky_doc_value *self)
{
    return slinky_doc_value_path_bool(self, "external", false);
}

/* '!self.external ? has(self.slurmKeyRef) : true' */
int slinky_model__rule_slurm_key_unless_external(const slinky_doc_value *self)
{
    return external(self) || has(self, "slurmKeyRef");
}

/* '!self.external ? has(self.jwtKeyRef) || has(self.jwtHs256KeyRef) : true' */
int slinky_model__rule_jwt_key_unless_external(const slinky_doc_value *self)
{
    return external(self) || has(self, "jwtKeyRef") || has(self, "jwtHs256KeyRef");
}

/* 'self.external ? has(self.externalConfig) : true' */
int slinky_model__rule_external_config_when_external(const slinky_doc_value *self)
{
    return !external(self) || has(self, "externalConfig");
}

/* 'has(self.ha) && self.ha.enabled ? has(self.persistence) &&
 *  self.persistence.enabled && self.persistence.existingClaim.size() > 0 : true' */
int slinky_model__rule_ha_needs_existing_claim(const slinky_doc_value *self)
{
    if (!has(self, "ha") || !slinky_doc_value_path_bool(self, "ha.enabled", false))
        return 1;
    const slinky_doc_value *p = slinky_doc_value_get(self, "persistence");
    if (!has(self, "persistence") || !slinky_doc_value_path_bool(p, "enabled", false))
        return 0;
    const char *claim = slinky_doc_value_get_string(slinky_doc_value_get(p, "existingClaim"));
    return claim && *claim;
}

/* "self.type != 'ScheduledUpdate' || (has(self.scheduledUpdate.startTime) &&
 *  has(self.scheduledUpdate.duration))" */
int slinky_model__rule_scheduled_update_times(const slinky_doc_value *self)
{
    const char *type = slinky_doc_value_get_string(slinky_doc_value_get(self, "type"));
    if (!type || strcmp(type, "ScheduledUpdate") != 0)
        return 1;
    const slinky_doc_value *su = slinky_doc_value_get(self, "scheduledUpdate");
    return has(su, "startTime") && has(su, "duration");
}

/* 'has(self.jwtKeyRef) || has(self.jwtHs256KeyRef)' */
int slinky_model__rule_jwt_key_set(const slinky_doc_value *self)
{
    return has(self, "jwtKeyRef") || has(self, "jwtHs256KeyRef");
}
