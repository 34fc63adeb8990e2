/*
 * N-API glue only: argument checks and the call into crc32c.c. Exports
 *   crc32c(data: Uint8Array, initial?: number): number   (unsigned 32-bit)
 *   crc32cSliceBy8(data, initial?): number                (the portable C code, for tests)
 *   implementation: string                               ("sse4.2" | "armv8-crc" | "slice-by-8")
 * The CRC reads the view's bytes in place (napi_get_typedarray_info), never a copy.
 * Type errors carry the code ERR_INVALID_ARG_TYPE.
 */
#define NAPI_VERSION 8
#include <node_api.h>

#include "crc32c.h"

typedef uint32_t (*crc_fn)(uint32_t, const unsigned char *, size_t);

static napi_value call_crc(napi_env env, napi_callback_info info, crc_fn fn) {
  size_t argc = 2;
  napi_value argv[2];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return NULL;
  bool is_typedarray = false;
  if (argc < 1 || napi_is_typedarray(env, argv[0], &is_typedarray) != napi_ok || !is_typedarray) {
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", "crc32c: data must be a Uint8Array");
    return NULL;
  }
  napi_typedarray_type type;
  size_t length;
  void *data;
  if (napi_get_typedarray_info(env, argv[0], &type, &length, &data, NULL, NULL) != napi_ok)
    return NULL;
  if (type != napi_uint8_array && type != napi_uint8_clamped_array) {
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", "crc32c: data must be a Uint8Array");
    return NULL;
  }
  uint32_t initial = 0;
  if (argc >= 2) {
    napi_valuetype vt;
    if (napi_typeof(env, argv[1], &vt) != napi_ok) return NULL;
    if (vt == napi_number) {
      if (napi_get_value_uint32(env, argv[1], &initial) != napi_ok) return NULL;
    } else if (vt != napi_undefined) {
      napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", "crc32c: initial must be a number");
      return NULL;
    }
  }
  /* A detached buffer reports length 0 and data NULL: the CRC of nothing. */
  uint32_t crc = length == 0 ? initial : fn(initial, (const unsigned char *)data, length);
  napi_value result;
  if (napi_create_uint32(env, crc, &result) != napi_ok) return NULL;
  return result;
}

static napi_value js_crc32c(napi_env env, napi_callback_info info) {
  return call_crc(env, info, crc32c);
}

static napi_value js_crc32c_sw(napi_env env, napi_callback_info info) {
  return call_crc(env, info, crc32c_sw);
}

static napi_value init(napi_env env, napi_value exports) {
  crc32c_init();
  napi_value fn, fn_sw, name;
  if (napi_create_function(env, "crc32c", NAPI_AUTO_LENGTH, js_crc32c, NULL, &fn) != napi_ok ||
      napi_create_function(env, "crc32cSliceBy8", NAPI_AUTO_LENGTH, js_crc32c_sw, NULL, &fn_sw) !=
          napi_ok)
    return NULL;
  if (napi_create_string_utf8(env, crc32c_impl_name(), NAPI_AUTO_LENGTH, &name) != napi_ok)
    return NULL;
  napi_property_descriptor props[] = {
      {"crc32c", NULL, NULL, NULL, NULL, fn, napi_enumerable, NULL},
      {"crc32cSliceBy8", NULL, NULL, NULL, NULL, fn_sw, napi_enumerable, NULL},
      {"implementation", NULL, NULL, NULL, NULL, name, napi_enumerable, NULL},
  };
  if (napi_define_properties(env, exports, 3, props) != napi_ok) return NULL;
  return exports;
}

NAPI_MODULE_INIT() { return init(env, exports); }
