#ifndef COFFER_CSODIUM_SHIM_H
#define COFFER_CSODIUM_SHIM_H
// Swift sees libsodium through this one header.
#include <sodium.h>
#endif
