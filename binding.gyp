# The N-API addon: thin C++ over the Go library lib/libinterlock.so.0.1
# (built first by node/build.js). Decisions:
#  - node-addon-api through its gyp targets file; NAPI_VERSION pinned to 8
#    (Node >= 12.22 / 14.17 / 16; we need thread-safe function ref/unref and
#    napi_add_env_cleanup_hook, both older than 8).
#  - C++ exceptions ON (node_addon_api_except): argument errors are thrown as
#    Napi::TypeError and Go status codes as Napi::Error; the addon's own
#    boundary (node/src/addon.h: Export, Guard, Quiet) turns them into JS
#    exceptions, or drops them when JS is off (a worker being terminated),
#    at every place Node calls in. node-addon-api's wrappers are not used:
#    they throw again from their catch block there, and the process aborts.
#  - The Go library is linked by its soname and found at run time through
#    $ORIGIN-relative rpaths: $ORIGIN first (a prebuild carries the library
#    beside the addon in prebuilds/<platform>/), then $ORIGIN/../../lib (a
#    build from source: build/Release/ sits two folders below the package
#    root and the library is in lib/), wherever the package is installed.
{
  "variables": {
    "interlock_lib": "libinterlock.so.0.1",
  },
  "targets": [
    {
      "target_name": "interlock",
      "sources": [
        "node/src/addon.cc",
        "node/src/calls.cc",
        "node/src/events.cc",
        "node/src/host.cc",
        "node/src/signals.cc",
      ],
      "dependencies": [
        "<!(node -p \"require('node-addon-api').targets\"):node_addon_api_except",
      ],
      "include_dirs": [
        "<(module_root_dir)/capi",
      ],
      "defines": [
        "NAPI_VERSION=8",
      ],
      "cflags_cc": [ "-std=c++17", "-Wall", "-Wextra", "-Wno-unused-parameter" ],
      "libraries": [
        "-L<(module_root_dir)/lib",
        "-l:<(interlock_lib)",
      ],
      "ldflags": [
        "-Wl,-rpath,'$$ORIGIN:$$ORIGIN/../../lib'",
      ],
    },
  ],
}
