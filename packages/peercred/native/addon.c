/*
 * N-API glue for one call:
 *   peerCredentials(fd: number): { uid, gid, pid }
 * getsockopt(fd, SOL_SOCKET, SO_PEERCRED) of a connected Unix socket: the credentials the peer
 * had when it called connect (or socketpair). Errors throw with the errno name as `code`
 * (EBADF, ENOTSOCK, ENOTCONN, ...); a non-Linux build throws ENOSYS.
 */
#define _GNU_SOURCE
#define NAPI_VERSION 8
#include <errno.h>
#include <node_api.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>

static const char *errno_name(int e) {
  switch (e) {
    case EBADF: return "EBADF";
    case ENOTSOCK: return "ENOTSOCK";
    case ENOTCONN: return "ENOTCONN";
    case EINVAL: return "EINVAL";
    case ENOPROTOOPT: return "ENOPROTOOPT";
    default: return "EIO";
  }
}

static napi_value set_int(napi_env env, napi_value obj, const char *key, int64_t v) {
  napi_value n;
  if (napi_create_int64(env, v, &n) != napi_ok) return NULL;
  if (napi_set_named_property(env, obj, key, n) != napi_ok) return NULL;
  return obj;
}

static napi_value js_peer_credentials(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return NULL;
  int32_t fd = -1;
  napi_valuetype vt = napi_undefined;
  if (argc >= 1) napi_typeof(env, argv[0], &vt);
  if (vt != napi_number || napi_get_value_int32(env, argv[0], &fd) != napi_ok || fd < 0) {
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", "peerCredentials: fd must be a number >= 0");
    return NULL;
  }
#ifdef SO_PEERCRED
  struct ucred cred;
  socklen_t len = sizeof cred;
  memset(&cred, 0, sizeof cred);
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
    int e = errno;
    napi_throw_error(env, errno_name(e), strerror(e));
    return NULL;
  }
  napi_value obj;
  if (napi_create_object(env, &obj) != napi_ok) return NULL;
  if (!set_int(env, obj, "uid", cred.uid) || !set_int(env, obj, "gid", cred.gid) ||
      !set_int(env, obj, "pid", cred.pid))
    return NULL;
  return obj;
#else
  (void)fd;
  napi_throw_error(env, "ENOSYS", "SO_PEERCRED is not available on this platform");
  return NULL;
#endif
}

NAPI_MODULE_INIT() {
  napi_value fn;
  if (napi_create_function(env, "peerCredentials", NAPI_AUTO_LENGTH, js_peer_credentials, NULL,
                           &fn) != napi_ok)
    return NULL;
  if (napi_set_named_property(env, exports, "peerCredentials", fn) != napi_ok) return NULL;
  return exports;
}
