{
  "targets": [
    {
      "target_name": "nearwire_crc32c",
      "sources": ["native/addon.c", "native/crc32c.c"],
      "cflags_c": ["-std=c11", "-O2", "-Wall", "-Wextra"],
      "xcode_settings": { "OTHER_CFLAGS": ["-O2"] }
    }
  ]
}
