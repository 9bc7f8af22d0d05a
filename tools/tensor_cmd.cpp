// tools/tensor_cmd.cpp - `onnxview tensor`: one tensor's type, shape, storage and values.
#include <cstdio>

#include "output.hpp"

namespace onnxview_cli {

int run_tensor(int argc, char** argv) {
    (void)argc;
    (void)argv;
    print_error("tensor", "not available yet");
    return exit_usage;
}

}  // namespace onnxview_cli
