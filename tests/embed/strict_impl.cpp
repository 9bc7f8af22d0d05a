// The one translation unit that compiles onnxview's implementation from the
// single header (stb style). Built with the strictest flags we promise:
// -fno-exceptions -fno-rtti -Wall -Wextra -Wpedantic -Werror.
#define ONNXVIEW_IMPLEMENTATION
#include "onnxview.hpp"
