/**
 * The HPACK static table (RFC 7541 Appendix A): 61 fixed header fields that both sides know.
 * Index 1 is `:authority`; an HPACK index 1..61 addresses this table, 62 and up the dynamic one.
 */

/** Number of entries in the static table (RFC 7541 Appendix A). Dynamic indices start after it. */
export const STATIC_TABLE_LENGTH = 61;

/**
 * Static table names, indexed by HPACK index (1..61); slot 0 is an unused placeholder so the
 * HPACK index is the array index.
 */
export const STATIC_NAMES: readonly string[] = [
  "",
  ":authority",
  ":method",
  ":method",
  ":path",
  ":path",
  ":scheme",
  ":scheme",
  ":status",
  ":status",
  ":status",
  ":status",
  ":status",
  ":status",
  ":status",
  "accept-charset",
  "accept-encoding",
  "accept-language",
  "accept-ranges",
  "accept",
  "access-control-allow-origin",
  "age",
  "allow",
  "authorization",
  "cache-control",
  "content-disposition",
  "content-encoding",
  "content-language",
  "content-length",
  "content-location",
  "content-range",
  "content-type",
  "cookie",
  "date",
  "etag",
  "expect",
  "expires",
  "from",
  "host",
  "if-match",
  "if-modified-since",
  "if-none-match",
  "if-range",
  "if-unmodified-since",
  "last-modified",
  "link",
  "location",
  "max-forwards",
  "proxy-authenticate",
  "proxy-authorization",
  "range",
  "referer",
  "refresh",
  "retry-after",
  "server",
  "set-cookie",
  "strict-transport-security",
  "transfer-encoding",
  "user-agent",
  "vary",
  "via",
  "www-authenticate",
];

/**
 * Static table values, indexed like {@link STATIC_NAMES} (slot 0 unused). Most are empty: only
 * the name is useful there.
 */
export const STATIC_VALUES: readonly string[] = [
  "",
  "",
  "GET",
  "POST",
  "/",
  "/index.html",
  "http",
  "https",
  "200",
  "204",
  "206",
  "304",
  "400",
  "404",
  "500",
  "",
  "gzip, deflate",
  ...new Array<string>(STATIC_TABLE_LENGTH - 16).fill(""),
];
