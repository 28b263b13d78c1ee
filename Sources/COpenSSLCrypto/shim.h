#ifndef COFFER_COPENSSLCRYPTO_SHIM_H
#define COFFER_COPENSSLCRYPTO_SHIM_H
// Swift sees OpenSSL's libcrypto through this one header. Coffer uses it for one
// thing only: HMAC-SHA-1/256/512 for TOTP codes (libsodium has no HMAC-SHA-1).
#include <openssl/evp.h>
#include <openssl/hmac.h>
#endif
