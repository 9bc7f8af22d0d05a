// tools/pack.cpp - `onnxview pack`: a model rewritten so that its weights
// can be used in place (onnxview/write.hpp), written atomically
// (onnxview/output_file.hpp).
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>

#include "onnxview/external_data.hpp"
#include "onnxview/model_file.hpp"
#include "onnxview/output_file.hpp"
#include "onnxview/write.hpp"
#include "options.hpp"
#include "output.hpp"
#include "progress.hpp"

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

// The temporary files a signal must remove.
const char* volatile pending[2] = {nullptr, nullptr};

extern "C" void remove_pending(int sig) {
    for (const char* volatile& p : pending)
        if (p != nullptr) std::remove(p);
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

struct pack_state {
    const mapped_file* input = nullptr;
    progress_line* line = nullptr;
};

// Payload pages of the input are not needed again: give them back, so that
// the resident set stays small whatever the model's size. The model file's
// own mapping is read-only, so dropping its pages (MADV_DONTNEED) keeps them
// in the page cache; other memory (external files, maybe heap copies) goes
// through release_pages, which never discards.
void payload_written(void* user, const char* data, std::size_t size) {
    const mapped_file& in = *static_cast<pack_state*>(user)->input;
    if (in.kind() == mapped_file::storage::mapped && data >= in.data() && size <= in.size() &&
        static_cast<std::size_t>(data - in.data()) <= in.size() - size) {
        (void)in.advise(access_hint::dontneed, static_cast<std::uint64_t>(data - in.data()), size);
        return;
    }
    release_pages(data, size);
}

void show_progress(void* user, std::uint64_t done, std::uint64_t total) {
    static_cast<pack_state*>(user)->line->update(done, total);
}

std::string directory_of(const char* path) {
    const std::string p(path);
    const std::size_t slash = p.find_last_of("/\\");
    return slash == std::string::npos ? std::string() : p.substr(0, slash + 1);
}

bool plain_file_name(std::string_view s) {
    return !s.empty() && s != "." && s != ".." && s.find_first_of("/\\:") == std::string_view::npos &&
           s.find('\0') == std::string_view::npos;
}

bool same_file(const char* a, const char* b) {
    std::error_code ec;
    return std::filesystem::equivalent(a, b, ec) && !ec;
}

std::string system_text(error e) {
    std::string s = errc_message(e.code);
    if (e.sys_errno != 0) s += std::string(" (") + std::strerror(e.sys_errno) + ")";
    return s;
}

bool power_of_two(std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

int fail(const std::string& message, int code) {
    print_error("pack", message);
    return code;
}

}  // namespace

command_line pack_command_line() {
    static arguments unused;
    return make_command_line(unused);
}

int run_pack(int argc, char** argv) {
    arguments a;
    int code = exit_ok;
    if (!parse_command_line(make_command_line(a), argc, argv, code)) return code;
    if (!power_of_two(a.align)) return fail("--align needs a power of two, not " + std::to_string(a.align), exit_usage);
    if (!power_of_two(a.inline_align))
        return fail("--inline-align needs a power of two, not " + std::to_string(a.inline_align), exit_usage);
    if (a.external != nullptr && a.internalize) return fail("--external and --internalize exclude each other", exit_usage);
    if (a.dedupe && a.external == nullptr) return fail("--dedupe needs --external NAME", exit_usage);
    if (a.external != nullptr && !plain_file_name(a.external))
        return fail("--external needs a file name without directories, not '" + std::string(a.external) + "'",
                    exit_usage);
    if (same_file(a.in, a.out) || std::string_view(a.in) == a.out)
        return fail("OUT '" + std::string(a.out) + "' is the input; write to another file", exit_usage);
    const std::string external_path = a.external ? directory_of(a.out) + a.external : std::string();
    if (a.external != nullptr && same_file(a.in, external_path.c_str()))
        return fail("--external '" + external_path + "' is the input; choose another name", exit_usage);

    options opts{};
    opts.verify = true;
    opts.file_hint = access_hint::sequential;  // payloads are read front to back, once
    model_file mf;
    if (!open_model("pack", a.in, opts, mf, code)) return code;

    result<output_file> created = output_file::create(a.out);
    if (!created)
        return fail("cannot create a file in the directory of '" + std::string(a.out) + "': " + system_text(created.err()),
                    exit_usage);
    output_file* out = &created.value();
    output_file data;
    if (a.external != nullptr) {
        result<output_file> d = output_file::create(external_path.c_str());
        if (!d) return fail("cannot create '" + external_path + "': " + system_text(d.err()), exit_usage);
        data = std::move(d.value());
    }
    pending[0] = out->temp_path();
    pending[1] = a.external ? data.temp_path() : nullptr;
    std::signal(SIGINT, remove_pending);
    std::signal(SIGTERM, remove_pending);

    pack_options po{};
    po.threshold = a.threshold;
    po.inline_align = a.inline_align;
    po.external_align = a.align;
    po.internalize = a.internalize;
    po.keep_typed = a.keep_typed;
    po.dedupe = a.dedupe;
    po.allow_over_2gib = a.allow_over_2gib;
    if (a.external != nullptr) po.external_location = a.external;
    po.payload_written = payload_written;
    // Payloads are copied file to file where the system can (copy_file_range).
    result<read_descriptor> input_fd = read_descriptor::open(a.in);
    if (input_fd) po.source_fd = input_fd.value().get();
    progress_line line("pack");
    pack_state state{&mf.file(), &line};
    po.progress = show_progress;
    po.user = &state;
    const external_payload_source source = mf.external();
    const write_sink model_sink = out->sink();
    const write_sink data_sink = a.external ? data.sink() : write_sink{};
    pack_stats st;
    const error e = pack_model(mf.bytes(), &source, po, model_sink, a.external ? &data_sink : nullptr, &st);
    line.finish();
    if (e) {
        if (e.code == errc::io_write_failed)
            return fail("cannot write '" + std::string(a.out) + "': " + system_text(e), exit_usage);
        if (e.code == errc::message_too_large)
            return fail("OUT would be " + std::to_string(e.offset) +
                            " bytes, over 2 GiB, which libprotobuf-based readers cannot open; use --external NAME, "
                            "or --allow-over-2gib",
                        exit_usage);
        if (errc_group(e.code) == errc::io_error || errc_group(e.code) == errc::external_path_unsafe ||
            errc_group(e.code) == errc::external_out_of_bounds || errc_group(e.code) == errc::external_bad_entry)
            return fail("cannot read the external data of '" + std::string(a.in) + "': " +
                            describe(e, mf.bytes().data(), mf.bytes().size()) +
                            (e.sys_errno ? std::string(" (") + std::strerror(e.sys_errno) + ")" : std::string()),
                        exit_usage);
        return fail("'" + std::string(a.in) + "': " + describe(e, mf.bytes().data(), mf.bytes().size()), exit_findings);
    }
    if (a.external != nullptr)
        if (error c = data.commit()) return fail("cannot write '" + external_path + "': " + system_text(c), exit_usage);
    pending[1] = nullptr;
    if (a.verify) {
        options check{};
        check.model_path = a.out;  // external data resolves next to OUT
        result<model_file> written = model_file::open(out->temp_path(), check);
        error v = written ? written.value().model_error() : written.err();
        std::uint64_t compared = 0;
        if (!v) {
            const external_payload_source written_source = written.value().external();
            v = same_tensors(mf.bytes(), &source, written.value().bytes(), &written_source, {}, &compared);
        }
        if (v) {
            if (a.external != nullptr) std::remove(external_path.c_str());
            return fail("verify: the output differs from '" + std::string(a.in) + "': " + describe(v), exit_findings);
        }
        std::printf("verified: %llu tensors equal bit for bit\n", static_cast<unsigned long long>(compared));
    }
    if (error c = out->commit()) return fail("cannot write '" + std::string(a.out) + "': " + system_text(c), exit_usage);
    pending[0] = nullptr;
    std::printf("packed '%s' -> '%s': %llu tensors (%llu aligned, %llu converted from typed fields, %llu moved to "
                "external data (%llu sharing a range), %llu brought back, %llu kept); %llu bytes",
                a.in, a.out, static_cast<unsigned long long>(st.tensors), static_cast<unsigned long long>(st.aligned),
                static_cast<unsigned long long>(st.converted), static_cast<unsigned long long>(st.externalized),
                static_cast<unsigned long long>(st.deduplicated), static_cast<unsigned long long>(st.internalized), static_cast<unsigned long long>(st.kept),
                static_cast<unsigned long long>(st.model_bytes));
    if (a.external != nullptr)
        std::printf(", '%s' %llu bytes", external_path.c_str(), static_cast<unsigned long long>(st.external_bytes));
    std::printf("\n");
    return exit_ok;
}

}  // namespace onnxview_cli
