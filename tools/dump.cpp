// tools/dump.cpp - `onnxview dump`: the printer library, streaming to stdout.
#include <cstdio>
#include <string>
#include <string_view>

#include "onnxview/json_format.hpp"
#include "onnxview/schema.hpp"
#include "onnxview/text_format.hpp"
#include "output.hpp"

namespace onnxview_cli {
namespace {

const char dump_help[] =
    "usage: onnxview dump FILE [--type MESSAGE] [--max-bytes N] [--json]\n"
    "\n"
    "Prints a protobuf message in text format, as\n"
    "  protoc --decode=onnx.ModelProto onnx.proto < FILE\n"
    "does, or (--json) in the protobuf JSON mapping, as MessageToJson does. The\n"
    "whole input is validated first: if it does not parse, nothing is printed and\n"
    "one error line names the byte offset and field path.\n"
    "\n"
    "options:\n"
    "  --type MESSAGE  the message type of FILE (default onnx.ModelProto), e.g.\n"
    "                  onnx.TensorProto for a test-data .pb file; the `onnx.`\n"
    "                  prefix may be left out\n"
    "  --max-bytes N   print at most N bytes of each string/bytes value (the rest\n"
    "                  is elided with a comment; not protoc-identical)\n"
    "  --json          protobuf JSON instead of text format\n"
    "  -h, --help      this text\n"
    "\n"
    "exit status: 0 ok, 1 the input does not parse as MESSAGE, 2 usage or I/O error\n";

void write_stdout(void*, const char* data, std::size_t n) { std::fwrite(data, 1, n, stdout); }

}  // namespace

int run_dump(int argc, char** argv) {
    const char* path = nullptr;
    std::string type = "onnx.ModelProto";
    bool json = false;
    onnxview::print_options opts{};
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (is_help(a)) {
            std::fputs(dump_help, stdout);
            return exit_ok;
        }
        if (a == "--json") {
            json = true;
        } else if (a == "--type") {
            if (i + 1 >= argc) {
                print_error("dump", "--type needs a message name, e.g. onnx.TensorProto");
                return exit_usage;
            }
            type = argv[++i];
            if (type.find('.') == std::string::npos) type = "onnx." + type;
        } else if (a == "--max-bytes") {
            std::uint64_t n = 0;
            if (i + 1 >= argc || !parse_u64(argv[i + 1], n) || n == 0) {
                print_error("dump", "--max-bytes needs a positive number");
                return exit_usage;
            }
            opts.max_bytes = n;
            ++i;
        } else if (!a.empty() && a[0] == '-') {
            print_error("dump", "unknown option '" + std::string(a) + "' (try onnxview dump --help)");
            return exit_usage;
        } else if (path == nullptr) {
            path = argv[i];
        } else {
            print_error("dump", "more than one FILE given (try onnxview dump --help)");
            return exit_usage;
        }
    }
    if (path == nullptr) {
        print_error("dump", "no FILE given (try onnxview dump --help)");
        return exit_usage;
    }
    const onnxview::schema::message_desc* root = onnxview::schema::find_message(type);
    if (root == nullptr) {
        print_error("dump", "unknown message type '" + type + "' (e.g. onnx.ModelProto, onnx.TensorProto)");
        return exit_usage;
    }
    onnxview::mapped_file file;
    int code = 0;
    if (!open_model_file("dump", path, file, &code)) return code;
    onnxview::output_sink sink;
    sink.write = write_stdout;
    const onnxview::error e = json ? onnxview::print_json(file.data(), file.size(), *root, sink, opts)
                                   : onnxview::print_text(file.data(), file.size(), *root, sink, opts);
    if (e) {
        std::fflush(stdout);
        print_error("dump", "'" + std::string(path) + "' is not a valid " + type + ": " +
                                describe(e, file.data(), file.size(), *root));
        return exit_findings;
    }
    if (std::fflush(stdout) != 0) {
        print_error("dump", "cannot write to standard output");
        return exit_usage;
    }
    return exit_ok;
}

}  // namespace onnxview_cli
