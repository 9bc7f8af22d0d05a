// tools/merge.cpp - `onnxview merge`: two models made one, as
// onnx.compose.merge_models makes them (onnxview/merge.hpp), weights streamed
// from both inputs; OUT appears whole or not at all.
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "onnxview/merge.hpp"
#include "onnxview/model_file.hpp"
#include "onnxview/output_file.hpp"
#include "options.hpp"
#include "output.hpp"
#include "progress.hpp"
#include "subcommand.hpp"
#include "write_output.hpp"

namespace onnxview_cli {
namespace {

using namespace onnxview;

struct arguments {
    const char* a = nullptr;
    const char* b = nullptr;
    const char* out = nullptr;
    std::vector<const char*> io_map;
    const char* prefix_a = nullptr;
    const char* prefix_b = nullptr;
    const char* external = nullptr;
    bool allow_over_2gib = false;
};

command_line make_command_line(arguments& a) {
    return {"merge",
            "join two models into one, as onnx.compose.merge_models does, their\n"
            "weights streamed from both files whatever their size",
            "Writes OUT: A's nodes, then B's, B reading each connected output of A where it\n"
            "read the input connected to it. Inputs are A's and B's unconnected ones;\n"
            "outputs A's unconnected ones and B's; initializers, value_info and\n"
            "quantization annotations of both; opset imports united; metadata_props of\n"
            "both; local functions of both. Refused (exit 1, nothing written): different\n"
            "ir_versions, a domain imported at two versions, a name used by both graphs\n"
            "(not a connection: give a prefix), a function in both, a metadata key with two\n"
            "values. Weights come into OUT, or with --external into NAME beside it.\n",
            "exit status: 0 written, 1 the models cannot be merged or are not valid, 2 usage or I/O error\n",
            {text_list("io-map", 0, "A_OUT:B_IN[,...]", a.io_map, "A_OUT:B_IN pairs separated by ','",
                       "feed B's graph input B_IN from A's graph output A_OUT (names before\n"
                       "prefixes); may repeat"),
             text("prefix-a", 0, "P", a.prefix_a, "a prefix",
                  "prefix P to A's names, as onnx.compose.add_prefix (see edit --prefix)"),
             text("prefix-b", 0, "P", a.prefix_b, "a prefix", "prefix P to B's names"),
             text("external", 0, "NAME", a.external, "a file name",
                  "write tensors of 1 KiB or more to NAME in OUT's directory"),
             flag("allow-over-2gib", 0, a.allow_over_2gib,
                  "write OUT even when it exceeds 2 GiB, which libprotobuf cannot read")},
            {{"A", &a.a}, {"B", &a.b}, {"OUT", &a.out}}};
}

bool parse_io_map(const std::vector<const char*>& given, std::vector<merge_connection>& out) {
    for (const char* g : given) {
        std::string_view s(g);
        while (true) {
            const std::size_t comma = s.find(',');
            const std::string_view pair = s.substr(0, comma);
            const std::size_t colon = pair.find(':');
            if (colon == std::string_view::npos || colon == 0 || colon + 1 == pair.size()) return false;
            out.push_back({pair.substr(0, colon), pair.substr(colon + 1)});
            if (comma == std::string_view::npos) break;
            s.remove_prefix(comma + 1);
        }
    }
    return true;
}

struct merge_state {
    const model_file* inputs[2];
    progress_line* line = nullptr;
};

// Payload pages of either input, or of their external files, are not needed again.
void give_back_pages(void* user, const char* data, std::size_t size) {
    for (const model_file* f : static_cast<const merge_state*>(user)->inputs)
        if (f->file().holds(data, size)) return release_payload(f->file(), data, size);
    release_pages(data, size);
}

void show_progress(void* user, std::uint64_t done, std::uint64_t total) {
    static_cast<merge_state*>(user)->line->update(done, total);
}

int run(arguments& a) {
    std::vector<merge_connection> io;
    if (!parse_io_map(a.io_map, io))
        return write_failure("merge", "--io-map needs A_OUT:B_IN pairs separated by ','", exit_usage);
    for (const char* p : {a.prefix_a, a.prefix_b})
        if (p != nullptr && *p == '\0') return write_failure("merge", "a prefix may not be empty", exit_usage);
    for (const char* in : {a.a, a.b})
        if (same_file(in, a.out) || std::string_view(in) == a.out)
            return write_failure("merge", "OUT '" + std::string(a.out) + "' is an input; write to another file",
                                 exit_usage);
    const std::string external_path = a.external ? directory_of(a.out) + a.external : std::string();
    if (a.external != nullptr && (external_path == a.out || same_file(a.a, external_path.c_str()) ||
                                  same_file(a.b, external_path.c_str())))
        return write_failure("merge", "--external '" + external_path + "' is OUT or an input; choose another name",
                             exit_usage);
    // The metadata's pages as private copies: the views and proxies read
    // every tensor's header, which would map the weights around it.
    options opts{};
    opts.verify = true;
    opts.reads = model_reads::metadata;
    opts.file_hint = access_hint::sequential;  // payloads are read front to back, once
    model_file fa, fb;
    int code = exit_ok;
    if (!open_model("merge", a.a, opts, fa, code) || !open_model("merge", a.b, opts, fb, code)) return code;

    result<output_file> created = output_file::create(a.out);
    if (!created)
        return write_failure("merge", "cannot create '" + std::string(a.out) + "': " + system_text(created.err()),
                             exit_usage);
    output_file data;
    if (a.external != nullptr) {
        result<output_file> d = output_file::create(external_path.c_str());
        if (!d) return write_failure("merge", "cannot create '" + external_path + "': " + system_text(d.err()), exit_usage);
        data = std::move(d.value());
    }
    merge_request request{};
    request.connections = io.data();
    request.connection_count = io.size();
    if (a.prefix_a != nullptr) request.prefix_a = a.prefix_a;
    if (a.prefix_b != nullptr) request.prefix_b = a.prefix_b;
    merge_report report;
    request.report = &report;
    pack_options po{};
    po.allow_over_2gib = a.allow_over_2gib;
    if (a.external != nullptr) po.external_location = a.external;
    progress_line line("merge");
    merge_state state{{&fa, &fb}, &line};
    po.payload_written = give_back_pages;
    po.progress = show_progress;
    po.user = &state;
    // The paths die with this function: the handler must not see them after.
    remove_on_signal(created.value().temp_path(), a.external != nullptr ? data.temp_path() : nullptr);
    struct forget_pending {
        ~forget_pending() { forget_on_signal(); }
    } forget;
    const external_payload_source sa = fa.external(), sb = fb.external();
    const write_sink model_sink = created.value().sink();
    const write_sink data_sink = a.external != nullptr ? data.sink() : write_sink{};
    pack_stats st;
    const error e = merge_models(fa.bytes(), &sa, fb.bytes(), &sb, request, po, model_sink,
                                 a.external != nullptr ? &data_sink : nullptr, &st);
    line.finish();
    if (e) {
        if (report.problem != merge_problem::none) {
            std::string subject;
            if (report.problem == merge_problem::ir_version_differs) {
                subject = "'" + std::string(a.a) + "' and '" + a.b + "'";
            } else if (report.problem == merge_problem::no_graph) {
                subject = "'" + std::string(report.side == 'a' ? a.a : a.b) + "'";
            } else if (report.problem == merge_problem::prefix_capture) {
                subject = "prefix '" + std::string(report.name) + "' of " + (report.side == 'a' ? "A" : "B") + ":";
            } else {
                subject = "'" + std::string(report.name) + "'";
                if (report.problem == merge_problem::opset_differs) subject = "domain " + subject;
            }
            return write_failure("merge", subject + " " + merge_problem_message(report.problem), exit_findings);
        }
        if (e.code == errc::io_write_failed)
            return write_failure("merge", "cannot write '" + std::string(a.out) + "': " + system_text(e), exit_usage);
        if (e.code == errc::message_too_large)
            return write_failure("merge", "OUT would be " + std::to_string(e.offset) +
                                              " bytes, over 2 GiB, which libprotobuf-based readers cannot open; use "
                                              "--external NAME, or --allow-over-2gib",
                                 exit_usage);
        return write_failure("merge", "cannot merge '" + std::string(a.a) + "' and '" + a.b + "': " + describe(e),
                             exit_findings);
    }
    if (a.external != nullptr) {
        if (error c = data.commit())
            return write_failure("merge", "cannot write '" + external_path + "': " + system_text(c), exit_usage);
        // Until OUT is in place the external file it names goes with it.
        remove_on_signal(created.value().temp_path(), external_path.c_str());
    }
    if (error c = created.value().commit()) {
        if (a.external != nullptr) std::remove(external_path.c_str());
        return write_failure("merge", "cannot write '" + std::string(a.out) + "': " + system_text(c), exit_usage);
    }
    std::printf("merged '%s' and '%s' -> '%s': %llu nodes, %llu initializers, %llu functions, %llu bytes", a.a, a.b,
                a.out, static_cast<unsigned long long>(report.nodes),
                static_cast<unsigned long long>(report.initializers), static_cast<unsigned long long>(report.functions),
                static_cast<unsigned long long>(st.model_bytes));
    if (a.external != nullptr)
        std::printf(" + %llu bytes in '%s'", static_cast<unsigned long long>(st.external_bytes), external_path.c_str());
    std::printf("\n");
    return exit_ok;
}

}  // namespace

const subcommand merge_subcommand = make_subcommand<arguments, make_command_line, run>();

}  // namespace onnxview_cli
