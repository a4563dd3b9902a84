#!/usr/bin/python3
"""jail_oci.py: the built-in jail profile as an OCI runtime config for job 42 with two GPUs."""
import slinky

cfg = slinky.JailSpec.default().render_oci(job={"job_id": "42", "gpus": "0-1"}, argv=["/bin/hostname"],
                                           rootfs="/tmp/job-42-rootfs")
print("ociVersion %s, runs %s, %d mounts, read-only root: %s" % (
    cfg["ociVersion"], cfg["process"]["args"][0], len(cfg["mounts"]), cfg["root"].get("readonly", False)))
