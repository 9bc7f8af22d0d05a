// tools/pack.cpp - `onnxview pack`: a model rewritten so that its weights
// can be used in place (onnxview/write.hpp), written as write_output.hpp
// writes.
#include <string>
#include <string_view>

#include "onnxview/write.hpp"
#include "options.hpp"
#include "output.hpp"
#include "subcommand.hpp"
#include "write_output.hpp"

namespace onnxview_cli {
namespace {

using namespace onnxview;

struct arguments {
    const char* in = nullptr;
    const char* out = nullptr;
    const char* external = nullptr;
    std::uint64_t threshold = 1024;
    std::uint64_t align = 4096;
    std::uint64_t inline_align = 64;
    bool internalize = false;
    bool dedupe = false;
    bool keep_typed = false;
    bool verify = false;
    bool allow_over_2gib = false;
};

constexpr std::uint64_t max_alignment = std::uint64_t(1) << 30;

command_line make_command_line(arguments& a) {
    return {"pack",
            "rewrite a model so that its weights are used in place:\n"
            "aligned raw_data or aligned external data",
            "Writes IN to OUT with every tensor payload of at least --threshold bytes\n"
            "where a zero-copy reader wants it: embedded raw_data starting at a file\n"
            "offset that is a multiple of --inline-align (an unknown field, which every\n"
            "protobuf reader skips, pads before it), or with --external NAME in the file\n"
            "NAME next to OUT at offsets that are multiples of --align. Typed fields\n"
            "(float_data, int32_data, ...) become little-endian raw_data. Everything else\n"
            "is copied byte for byte; payloads are streamed from IN, never held in\n"
            "memory. OUT (and NAME) are written to temporary files and renamed into\n"
            "place when complete; on an error or a signal nothing is left behind.\n",
            "exit status: 0 written, 1 IN is not a valid model (or --verify found a\n"
            "difference), 2 usage or I/O error (unreadable input or external data,\n"
            "unwritable directory, disk full)\n",
            {text("external", 0, "NAME", a.external, "a file name",
                  "move payloads of at least --threshold bytes to NAME, a file in OUT's\n"
                  "directory; smaller external payloads come back into OUT"),
             number("threshold", 0, "N", a.threshold, 1, ~std::uint64_t(0),
                    "payloads of at least N bytes are aligned or moved (default 1024)"),
             number("align", 0, "N", a.align, 1, max_alignment,
                    "external payload offsets are multiples of N, a power of two\n"
                    "(default 4096; 65536 for Windows mappings)"),
             number("inline-align", 0, "N", a.inline_align, 1, max_alignment,
                    "embedded raw_data starts at multiples of N, a power of two (default 64;\n"
                    "1: no alignment)"),
             flag("dedupe", 0, a.dedupe,
                  "with --external: tensors with the same data type, dims and bytes share\n"
                  "one range of NAME (onnx.load, onnx.checker and onnxruntime accept this)"),
             flag("internalize", 0, a.internalize, "bring external payloads back into OUT"),
             flag("keep-typed", 0, a.keep_typed, "leave typed fields (float_data, ...) as they are"),
             flag("verify", 0, a.verify, "read OUT back and compare every tensor with IN, bit for bit"),
             flag("allow-over-2gib", 0, a.allow_over_2gib,
                  "write OUT even when it exceeds 2 GiB, which libprotobuf cannot read")},
            {{"IN", &a.in}, {"OUT", &a.out}}};
}

bool plain_file_name(std::string_view s) {
    return !s.empty() && s != "." && s != ".." && s.find_first_of("/\\:") == std::string_view::npos &&
           s.find('\0') == std::string_view::npos;
}

bool power_of_two(std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

int fail(const std::string& message, int code) { return write_failure("pack", message, code); }

int run(arguments& a) {
    if (!power_of_two(a.align)) return fail("--align needs a power of two, not " + std::to_string(a.align), exit_usage);
    if (!power_of_two(a.inline_align))
        return fail("--inline-align needs a power of two, not " + std::to_string(a.inline_align), exit_usage);
    if (a.external != nullptr && a.internalize) return fail("--external and --internalize exclude each other", exit_usage);
    if (a.dedupe && a.external == nullptr) return fail("--dedupe needs --external NAME", exit_usage);
    if (a.external != nullptr && !plain_file_name(a.external))
        return fail("--external needs a file name without directories, not '" + std::string(a.external) + "'",
                    exit_usage);

    pack_options po{};
    po.threshold = a.threshold;
    po.inline_align = a.inline_align;
    po.external_align = a.align;
    po.internalize = a.internalize;
    po.keep_typed = a.keep_typed;
    po.dedupe = a.dedupe;
    po.allow_over_2gib = a.allow_over_2gib;
    return write_model("pack", a.in, a.out, po, a.external, a.verify);
}

}  // namespace

const subcommand pack_subcommand = make_subcommand<arguments, make_command_line, run>();

}  // namespace onnxview_cli
