/* tls.c: generate a self-signed CA and a serving certificate for 127.0.0.1/localhost. */
#ifndef SLINKY_APISERVER_TLS_H
#define SLINKY_APISERVER_TLS_H

/** PEM strings (malloc'd) for the CA certificate, the serving certificate and its key. */
int as_tls_generate(char **ca_pem, char **cert_pem, char **key_pem);

#endif
