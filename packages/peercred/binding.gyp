{
  "targets": [
    {
      "target_name": "nearwire_peercred",
      "sources": ["native/addon.c"],
      "cflags_c": ["-std=gnu11", "-O2", "-Wall", "-Wextra"]
    }
  ]
}
