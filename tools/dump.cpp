// tools/dump.cpp - `onnxview dump`: the printer library, streaming to stdout.
#include <cstdio>
#include <limits>
#include <string>
#include <string_view>

#include "onnxview/json_format.hpp"
#include "onnxview/schema.hpp"
#include "onnxview/text_format.hpp"
#include "options.hpp"
#include "output.hpp"
#include "subcommand.hpp"

namespace onnxview_cli {
namespace {

struct arguments {
    const char* file = nullptr;
    const char* type = "onnx.ModelProto";
    std::uint64_t max_bytes = 0;  // 0: no limit
    bool json = false;
};

command_line make_command_line(arguments& a) {
    return {"dump",
            "print a message as protobuf text (or JSON)",
            "Prints a protobuf message in text format, as\n"
            "  protoc --decode=onnx.ModelProto onnx.proto < FILE\n"
            "does, or (--json) in the protobuf JSON mapping, as MessageToJson does. The\n"
            "whole input is validated first: if it does not parse, nothing is printed and\n"
            "one error line names the byte offset and field path.\n",
            "exit status: 0 ok, 1 the input does not parse as MESSAGE, 2 usage or I/O error\n",
            {text("type", 0, "MESSAGE", a.type, "a message name, e.g. onnx.TensorProto",
                  "the message type of FILE (default onnx.ModelProto), e.g.\n"
                  "onnx.TensorProto for a test-data .pb file; the `onnx.`\n"
                  "prefix may be left out"),
             number("max-bytes", 0, "N", a.max_bytes, 1, std::numeric_limits<std::uint64_t>::max(),
                    "print at most N bytes of each string/bytes value (the rest\n"
                    "is elided with a comment; not protoc-identical)"),
             flag("json", 0, a.json, "protobuf JSON instead of text format")},
            {{"FILE", &a.file}}};
}

void write_stdout(void*, const char* data, std::size_t n) { std::fwrite(data, 1, n, stdout); }

int run(arguments& a) {
    int code = exit_ok;
    const char* path = a.file;
    std::string type = a.type;
    if (type.find('.') == std::string::npos) type = "onnx." + type;
    onnxview::options opts{};
    opts.max_printed_bytes = a.max_bytes;
    const onnxview::schema::message_desc* root = onnxview::schema::find_message(type);
    if (root == nullptr) {
        print_error("dump", "unknown message type '" + type + "' (e.g. onnx.ModelProto, onnx.TensorProto)");
        return exit_usage;
    }
    onnxview::model_file mf;
    if (!open_model("dump", path, {}, mf, code)) return code;
    const std::string_view bytes = mf.bytes();
    onnxview::output_sink sink;
    sink.write = write_stdout;
    const onnxview::error e = a.json ? onnxview::print_json(bytes.data(), bytes.size(), *root, sink, opts)
                                     : onnxview::print_text(bytes.data(), bytes.size(), *root, sink, opts);
    if (e) {
        std::fflush(stdout);
        print_error("dump", "'" + shown_path(path) + "' is not a valid " + type + ": " +
                                describe(e, bytes.data(), bytes.size(), *root) +
                                (root == &onnxview::schema::msg_ModelProto ? diagnosis_suffix(bytes, path) : ""));
        return exit_findings;
    }
    if (std::fflush(stdout) != 0) {
        print_error("dump", "cannot write to standard output");
        return exit_usage;
    }
    return exit_ok;
}

}  // namespace

const subcommand dump_subcommand = make_subcommand<arguments, make_command_line, run>();

}  // namespace onnxview_cli
