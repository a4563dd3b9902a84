#!/usr/bin/env bash
# A throw-away OpenLDAP slapd (Debian's) for the LDAP sink's tests and bench.
#   slapd.sh up DIR     make DIR (a test CA and server certificate from
#                       certtool, a cn=config in DIR/slapd.d, an mdb database
#                       dc=slinky,dc=test) and start slapd on a free loopback
#                       port; writes DIR/env (LDAP_URI, LDAP_BASE,
#                       LDAP_BIND_DN, LDAP_PWFILE, LDAP_CA, LDAP_PORT, and
#                       LDAP_SVC_DN/LDAP_SVC_PWFILE: a service account that may
#                       write but, as every DN but the root DN, gets at most
#                       10 entries per search)
#   slapd.sh start DIR  start it again (same port) after a stop
#   slapd.sh stop DIR   stop it (the data stays)
# Every operation needs TLS (olcSecurity tls=1): clients use StartTLS
# against the test CA. The ldapPublicKey schema (openssh-lpk) is not shipped
# by Debian's slapd, so it is defined here.
set -euo pipefail
cmd=${1:?usage: slapd.sh up|start|stop DIR}; D=${2:?DIR}

start() {
  # shellcheck disable=SC1091
  . "$D/env"
  /usr/sbin/slapd -F "$D/slapd.d" -h "ldap://127.0.0.1:$LDAP_PORT/" -n "slinky-test-slapd"
  for _ in $(seq 100); do
    if LDAPTLS_CACERT=$LDAP_CA ldapsearch -H "$LDAP_URI" -ZZ -x -D "$LDAP_BIND_DN" \
        -y "$LDAP_PWFILE" -b "$LDAP_BASE" -s base dn >/dev/null 2>&1; then
      return 0
    fi
    sleep 0.1
  done
  echo "slapd.sh: slapd did not answer on $LDAP_URI" >&2
  return 1
}

stop() {
  [ -f "$D/slapd.pid" ] || return 0
  local pid; pid=$(cat "$D/slapd.pid")
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 100); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  rm -f "$D/slapd.pid"
}

case $cmd in
stop) stop; exit 0 ;;
start) start; exit 0 ;;
up) ;;
*) echo "usage: slapd.sh up|start|stop DIR" >&2; exit 2 ;;
esac

mkdir -p "$D/slapd.d" "$D/db"
# --- a test CA and a server certificate for 127.0.0.1 -------------------------
certtool --generate-privkey --key-type=ecdsa --outfile "$D/ca.key" 2>/dev/null
printf 'cn = slinky test CA\nca\ncert_signing_key\nexpiration_days = 2\n' >"$D/ca.tmpl"
certtool --generate-self-signed --load-privkey "$D/ca.key" --template "$D/ca.tmpl" \
  --outfile "$D/ca.pem" 2>/dev/null
certtool --generate-privkey --key-type=ecdsa --outfile "$D/server.key" 2>/dev/null
printf 'cn = 127.0.0.1\nip_address = 127.0.0.1\ndns_name = localhost\ntls_www_server\nexpiration_days = 2\n' \
  >"$D/server.tmpl"
certtool --generate-certificate --load-privkey "$D/server.key" --load-ca-certificate "$D/ca.pem" \
  --load-ca-privkey "$D/ca.key" --template "$D/server.tmpl" --outfile "$D/server.pem" 2>/dev/null
chmod 600 "$D/server.key"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
printf 'slinky-test-secret' >"$D/bind.pw"; chmod 600 "$D/bind.pw"
hash=$(slappasswd -s slinky-test-secret)
S=/etc/ldap/schema
cat >"$D/config.ldif" <<EOF
dn: cn=config
objectClass: olcGlobal
cn: config
olcPidFile: $D/slapd.pid
olcTLSCACertificateFile: $D/ca.pem
olcTLSCertificateFile: $D/server.pem
olcTLSCertificateKeyFile: $D/server.key
olcSecurity: tls=1
olcLogLevel: none

dn: cn=module{0},cn=config
objectClass: olcModuleList
cn: module{0}
olcModulePath: /usr/lib/ldap
olcModuleLoad: back_mdb

dn: cn=schema,cn=config
objectClass: olcSchemaConfig
cn: schema

include: file://$S/core.ldif

include: file://$S/cosine.ldif

include: file://$S/nis.ldif

include: file://$S/inetorgperson.ldif

dn: cn=openssh-lpk,cn=schema,cn=config
objectClass: olcSchemaConfig
cn: openssh-lpk
olcAttributeTypes: ( 1.3.6.1.4.1.24552.500.1.1.1.13 NAME 'sshPublicKey'
  DESC 'an OpenSSH public key line' EQUALITY octetStringMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.40 )
olcObjectClasses: ( 1.3.6.1.4.1.24552.500.1.1.2.0 NAME 'ldapPublicKey'
  DESC 'an entry with OpenSSH public keys' SUP top AUXILIARY
  MAY ( sshPublicKey \$ uid ) )

dn: olcDatabase={-1}frontend,cn=config
objectClass: olcDatabaseConfig
objectClass: olcFrontendConfig
olcDatabase: {-1}frontend

dn: olcDatabase={0}config,cn=config
objectClass: olcDatabaseConfig
olcDatabase: {0}config
olcAccess: {0}to * by * none

dn: olcDatabase={1}mdb,cn=config
objectClass: olcDatabaseConfig
objectClass: olcMdbConfig
olcDatabase: {1}mdb
olcSuffix: dc=slinky,dc=test
olcRootDN: cn=admin,dc=slinky,dc=test
olcRootPW: $hash
olcDbDirectory: $D/db
olcDbMaxSize: 1073741824
olcDbIndex: objectClass eq
olcDbIndex: uid,cn,memberUid eq
olcDbIndex: uidNumber,gidNumber eq
olcSizeLimit: 10
olcAccess: {0}to attrs=userPassword by anonymous auth by * none
olcAccess: {1}to * by dn.exact="cn=sink,dc=slinky,dc=test" write by * read
EOF
slapadd -n 0 -F "$D/slapd.d" -l "$D/config.ldif" >/dev/null 2>"$D/slapadd.log" ||
  { cat "$D/slapadd.log" >&2; exit 1; }
printf 'sink-secret' >"$D/sink.pw"; chmod 600 "$D/sink.pw"
printf 'dn: dc=slinky,dc=test\nobjectClass: dcObject\nobjectClass: organization\ndc: slinky\no: slinky test\n\ndn: cn=sink,dc=slinky,dc=test\nobjectClass: organizationalRole\nobjectClass: simpleSecurityObject\ncn: sink\nuserPassword: %s\n' "$(slappasswd -s sink-secret)" |
  slapadd -F "$D/slapd.d" -b dc=slinky,dc=test >/dev/null 2>>"$D/slapadd.log" ||
  { cat "$D/slapadd.log" >&2; exit 1; }
cat >"$D/env" <<EOF
LDAP_PORT=$port
LDAP_URI=ldap://127.0.0.1:$port
LDAP_BASE=dc=slinky,dc=test
LDAP_BIND_DN=cn=admin,dc=slinky,dc=test
LDAP_PWFILE=$D/bind.pw
LDAP_CA=$D/ca.pem
LDAP_SVC_DN=cn=sink,dc=slinky,dc=test
LDAP_SVC_PWFILE=$D/sink.pw
EOF
start
