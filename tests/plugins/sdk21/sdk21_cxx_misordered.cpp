// A descriptor whose version is named before its name: in C++20 this does not compile (a ctest expects
// the compiler's "designator order" error), where a positional initializer would swap them silently.
#include "klab/plugin.h"

extern const klab_plugin descriptor;
const klab_plugin descriptor = {
    KLAB_DESCRIPTOR_HEADER,
    .version = "1",
    .name = "misordered",
};
