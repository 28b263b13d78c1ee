#ifndef COFFER_CARGON2_SHIM_H
#define COFFER_CARGON2_SHIM_H
#include <argon2.h>
#include <stdint.h>

// Swift cannot import function-like or cast-bearing macros; re-export them as values.
static inline uint32_t coffer_argon2_default_flags(void) { return ARGON2_DEFAULT_FLAGS; }
static inline uint32_t coffer_argon2_flag_clear_password(void) { return ARGON2_FLAG_CLEAR_PASSWORD; }
static inline uint32_t coffer_argon2_flag_clear_secret(void) { return ARGON2_FLAG_CLEAR_SECRET; }
static inline uint32_t coffer_argon2_min_memory(void) { return ARGON2_MIN_MEMORY; }
static inline uint32_t coffer_argon2_max_lanes(void) { return ARGON2_MAX_LANES; }
static inline uint32_t coffer_argon2_min_salt_length(void) { return ARGON2_MIN_SALT_LENGTH; }
static inline uint32_t coffer_argon2_min_outlen(void) { return ARGON2_MIN_OUTLEN; }
#endif
