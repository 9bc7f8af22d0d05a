// tools/pack.cpp - `onnxview pack`: a model rewritten so that its weights
// can be used in place (onnxview/write.hpp), written as write_output.hpp
// writes.
#include <filesystem>
#include <string>
#include <string_view>

#include "onnxview/file.hpp"
#include "onnxview/model_file.hpp"
#include "onnxview/rebind.hpp"
#include "onnxview/write.hpp"
#ifdef ONNXVIEW_CLI_COMPARE  // built with libxxhash (tools/meson.build)
#include "onnxview/compare/model_diff.hpp"
#endif
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
    const char* source = nullptr;
    std::uint64_t threshold = 1024;
    std::uint64_t align = 4096;
    std::uint64_t inline_align = 64;
    bool internalize = false;
    bool dedupe = false;
    bool keep_typed = false;
    bool verify = false;
    bool allow_over_2gib = false;
    bool reference = false;
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
            "place when complete; on an error or a signal nothing is left behind.\n"
            "\n"
            "With --reference, OUT is a weight-less proxy for tools that load every\n"
            "weight (onnx.shape_inference, version_converter, ...): OUT, in IN's\n"
            "directory, references the payloads of IN's large tensors (INT64 excepted)\n"
            "where they lie in IN (raw_data, or float_data/double_data in one packed\n"
            "run), as external data; nothing of the weights is copied.\n"
            "OUT records IN's name, size and modification time. Packing a proxy\n"
            "(without --reference) puts the weights back: into OUT, or with --external\n"
            "into NAME, after checking that the file it references has not changed.\n"
            "A tensor that a tool run on the proxy left without a payload (dropped\n"
            "external_data, a new name) is bound again to the original's tensor of its\n"
            "name, or else of its place in the graph (the same consumers, input slots,\n"
            "data type and dims; one line each); one that matches none, or several, or\n"
            "whose data type or dims changed is refused.\n",
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
             flag("reference", 0, a.reference,
                  "write OUT, in IN's directory, as a proxy whose tensors of at least\n"
                  "--threshold bytes reference their bytes in IN (see above)"),
             text("source", 0, "ORIGINAL", a.source, "a model file",
                  "putting a proxy back: the model it was made from, when a tool dropped\n"
                  "the proxy's record of it; in IN's directory"),
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

// The source record of IN when IN is a proxy (a record that cannot be read
// is a problem); `found` is false when IN is none, or not a model
// (write_model reports that).
struct proxy_source {
    bool found = false;
    reference_source record;
    std::string problem;  // non-empty: refuse with this line
};

proxy_source read_proxy_source(const char* in, const mapped_file& bytes) {
    proxy_source s;
    const result<reference_source> r = find_reference_source(bytes.bytes());
    if (!r) {
        if (r.err().code == errc::external_bad_entry)
            s.problem = "'" + std::string(in) + "': the metadata entry '" + std::string(reference_source_key) +
                        "' is not size=N;mtime_ns=M;location=NAME";
        return s;
    }
    s.found = true;
    s.record = *r;
    return s;
}

// A file time as seconds since 1970 with its nanoseconds: "1796278651.384647782".
std::string seconds(std::int64_t ns) {
    const std::int64_t whole = ns / 1000000000, part = ns % 1000000000;
    std::string fraction = std::to_string(part < 0 ? -part : part);
    fraction.insert(0, 9 - fraction.size(), '0');
    return (ns < 0 && whole == 0 ? "-" : "") + std::to_string(whole) + "." + fraction;
}

// Why the source a proxy references cannot be used, or "".
std::string stale_source(const char* proxy, const reference_source& r) {
    const std::string path = directory_of(proxy) + std::string(r.location);
    const result<file_stamp> now = stamp_file(path.c_str());
    if (!now) return "cannot read '" + path + "', which '" + proxy + "' references: " + system_text(now.err());
    if (*now == r.stamp) return std::string();
    const std::string what = now->size != r.stamp.size
                                 ? "size " + std::to_string(r.stamp.size) + " then, " + std::to_string(now->size) + " now"
                                 : "modified at " + seconds(r.stamp.mtime_ns) + " then, " + seconds(now->mtime_ns) + " now";
    return "'" + path + "' changed since '" + proxy + "' was made from it (" + what +
           "): the proxy's references no longer hold";
}

// --reference: OUT beside IN, referencing IN by its bare name.
int make_proxy(const arguments& a, pack_options po, const proxy_source& existing) {
    if (a.external != nullptr || a.internalize || a.dedupe)
        return fail("--reference excludes --external, --internalize and --dedupe", exit_usage);
    // onnx.checker refuses external locations with '..' or a root.
    if (!same_directory(a.in, a.out))
        return fail("--reference: OUT '" + std::string(a.out) + "' must be in the directory of IN '" + a.in +
                        "' (external data locations cannot leave the model's directory)",
                    exit_usage);
    if (existing.found)
        return fail("'" + std::string(a.in) + "' is already a proxy of '" + std::string(existing.record.location) +
                        "': make the proxy from that file",
                    exit_usage);
    // External data may not leave the model's directory through a symlink
    // (open_beneath): a symlinked IN must point into its own directory.
    std::error_code ec;
    const std::filesystem::path target = std::filesystem::canonical(a.in, ec);
    const std::string in_directory = directory_of(a.in);
    if (!ec && target.parent_path() != std::filesystem::canonical(in_directory.empty() ? "." : in_directory, ec))
        return fail("--reference: IN '" + std::string(a.in) + "' is a link to '" + target.string() +
                        "', outside its directory, which external data may not reference: make the proxy beside "
                        "that file",
                    exit_usage);
    const std::string name = file_name_of(a.in);
    // onnx.load strips leading '.' and '/' from locations (_sanitize_path).
    if (name.empty() || name[0] == '.')
        return fail("--reference: IN's file name '" + name + "' starts with '.', which onnx.load strips", exit_usage);
    const result<file_stamp> stamp = stamp_file(a.in);
    if (!stamp) return fail("cannot read '" + std::string(a.in) + "': " + system_text(stamp.err()), exit_usage);
    po.reference.location = name;
    po.reference.stamp = *stamp;
    return write_model("pack", a.in, a.out, po, nullptr, a.verify);
}

// A string sink: the proxy with its references given back, in memory (a
// proxy is small: its weights are references).
error append_to(void* user, const char* data, std::size_t size) noexcept {
    static_cast<std::string*>(user)->append(data, size);
    return error();
}

const char* refusal_text(rebind_refusal r) {
    switch (r) {
        case rebind_refusal::no_match: return "no tensor of the original matches it by name or place";
        case rebind_refusal::type_differs: return "its data type differs from the original's";
        case rebind_refusal::shape_differs: return "its dims differ from the original's";
        case rebind_refusal::ambiguous: return "several tensors of the original match it";
        case rebind_refusal::not_referable: return "the original's payload is not in raw_data layout";
    }
    return "?";
}

// Putting IN (a proxy a tool rewrote) back from `original`, its source in
// IN's directory: the tensors left without a payload are bound again,
// then the weights written into OUT.
int put_back(const arguments& a, pack_options po, const std::string& original) {
    options opts{};
    opts.verify = true;
    result<model_file> proxy = model_file::open(a.in, opts);
    if (!proxy) return write_model("pack", a.in, a.out, po, a.external, a.verify, 0, true);  // its error
    // Nothing missing (the planner walks no original then): the original,
    // of many GiB maybe, is not opened.
    rebind_plan plan;
    if (error e = plan_rebinds(proxy->model(), model_view(), "", nullptr, 0, plan))
        return fail("'" + std::string(a.in) + "': " + describe(e), exit_findings);
    if (plan.missing() == 0) return write_model("pack", a.in, a.out, po, a.external, a.verify, 0, true);
    // Its metadata is all the planner reads; no need to verify its bytes.
    result<model_file> source = model_file::open(original.c_str());
    if (!source)
        return fail("cannot read '" + original + "', the original of '" + a.in + "': " + system_text(source.err()),
                    exit_usage);
    const std::string location = file_name_of(original.c_str());
    if (error e = plan_rebinds(proxy->model(), source->model(), location, nullptr, 0, plan))
        return fail("'" + std::string(a.in) + "': " + describe(e), exit_findings);
    std::vector<std::pair<std::string, std::string>> pairs;
    const bool unmatched = !plan.refused.empty();
    bool by_place = false;
#ifdef ONNXVIEW_CLI_COMPARE
    by_place = true;
    if (unmatched) {
        // Names changed: the graphs' matching finds the weights (or the
        // nodes holding them) by place.
        if (error e = pair_value_names(source.value(), proxy.value(), pairs))
            return fail("'" + std::string(a.in) + "': " + describe(e), exit_findings);
        std::vector<value_rename> renames;
        for (const auto& [before, after] : pairs) renames.push_back({before, after});
        if (error e = plan_rebinds(proxy->model(), source->model(), location, renames.data(), renames.size(), plan))
            return fail("'" + std::string(a.in) + "': " + describe(e), exit_findings);
    }
#endif
    if (!plan.refused.empty()) {
        for (const rebind_problem& p : plan.refused) {
            std::string line = "tensor '";
            text_quote(line, p.name);
            print_error("pack", line + "' of '" + a.in + "' has no payload and cannot be put back: " +
                                    refusal_text(p.why) + " (" + p.detail + ")");
        }
        return fail(std::to_string(plan.refused.size()) + " of the " + std::to_string(plan.missing()) +
                        " tensors without a payload in '" + a.in + "' refused; nothing written" +
                        (unmatched && !by_place ? " (tensors are matched by place only in builds with the diff command)"
                                                : ""),
                    exit_findings);
    }
    edit_options ed{};
    ed.rebinds = plan.rebinds.data();
    ed.rebind_count = plan.rebinds.size();
    pack_options rebinding{};
    rebinding.inline_align = 1;  // every other byte as it is
    rebinding.keep_typed = true;
    rebinding.allow_over_2gib = true;
    rebinding.edits = &ed;
    std::string rebound;
    const write_sink sink{&rebound, append_to, nullptr};
    if (error e = pack_model(proxy->bytes(), nullptr, rebinding, sink, nullptr, nullptr))
        return fail("'" + std::string(a.in) + "': " + describe(e), exit_findings);
    // By name is what a converter's dropped references give, often for
    // every weight: one line. By place, each is worth reading.
    std::size_t by_name = 0;
    for (const rebind_entry& b : plan.bound) {
        if (b.match == rebind_match::name) {
            ++by_name;
            continue;
        }
        std::string line = "rebound '";
        text_quote(line, b.name);
        line += "' to '";
        text_quote(line, b.original_name);
        std::printf("%s' of '%s' (by place in the graph)\n", line.c_str(), original.c_str());
    }
    if (by_name != 0)
        std::printf("rebound %zu tensors by name to those of '%s'\n", by_name, original.c_str());
    return write_model("pack", a.in, a.out, po, a.external, a.verify, 0, true, rebound);
}

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
    // A proxy's record, read from IN's own fields (write_model verifies the
    // whole model after this); its location is a view into `in`, which stays
    // mapped until the end.
    proxy_source source;
    result<mapped_file> in = mapped_file::open(a.in);
    if (in) source = read_proxy_source(a.in, *in);
    if (!source.problem.empty()) return fail(source.problem, exit_usage);
    if (a.reference) {
        if (a.source != nullptr) return fail("--source puts a proxy back; it excludes --reference", exit_usage);
        return make_proxy(a, po, source);
    }
    if (!source.found && a.source == nullptr) return write_model("pack", a.in, a.out, po, a.external, a.verify);
    // Putting the weights back: they must be those the proxy was made from.
    const std::string recorded = source.found ? directory_of(a.in) + std::string(source.record.location) : "";
    if (a.source != nullptr) {
        if (!same_directory(a.source, a.in))
            return fail("--source '" + std::string(a.source) + "' must be in the directory of IN '" + a.in +
                            "' (the references of IN are relative to it)",
                        exit_usage);
        if (source.found && !same_file(a.source, recorded.c_str()))
            return fail("--source '" + std::string(a.source) + "' is not '" + recorded + "', which '" + a.in +
                            "' records as its original",
                        exit_usage);
    }
    if (source.found) {
        const std::string stale = stale_source(a.in, source.record);
        if (!stale.empty()) return fail(stale, exit_usage);
    }
    if (a.external == nullptr) po.internalize = true;
    return put_back(a, po, a.source != nullptr ? std::string(a.source) : recorded);
}

}  // namespace

const subcommand pack_subcommand = make_subcommand<arguments, make_command_line, run>();

}  // namespace onnxview_cli
