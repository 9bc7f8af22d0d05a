// tools/write_output.cpp - writing a model atomically (write_output.hpp).
#include "write_output.hpp"

#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <string_view>

#include "onnxview/external_data.hpp"
#include "onnxview/model_file.hpp"
#include "onnxview/output_file.hpp"
#include "output.hpp"
#include "progress.hpp"
#include "tensor_census.hpp"

namespace onnxview_cli {
namespace {

using namespace onnxview;

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

// Payload pages of the input are not needed again (release_payload).
void payload_written(void* user, const char* data, std::size_t size) {
    release_payload(*static_cast<pack_state*>(user)->input, data, size);
}

void show_progress(void* user, std::uint64_t done, std::uint64_t total) {
    static_cast<pack_state*>(user)->line->update(done, total);
}

// The external data file of one of the input's tensors that `path` is, or
// "": replacing that file would change the input.
std::string input_data_at(const model_file& mf, const char* in, const char* path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return std::string();  // no file there, none of the input's
    std::set<std::string_view> seen;
    for (const census_tensor& c : take_census(mf.model()).tensors) {
        if (c.t.data_location() != location_kind::external) continue;
        const std::string_view location = find_external_location(c.t).location;
        if (!seen.insert(location).second) continue;
        const std::string file = directory_of(in) + std::string(location);
        if (same_file(file.c_str(), path)) return std::string(location);
    }
    // The walk faulted in every tensor's header: drop them again.
    (void)mf.file().advise(access_hint::dontneed);
    return std::string();
}

std::string rename_text(const name_change& c) {
    return "--rename " + std::string(c.old_name) + "=" + std::string(c.new_name);
}

// Why pack_model refused po.edits->renames, or "" when it did not.
std::string rename_failure(const pack_options& po, std::string_view model) {
    rename_check c;
    if (po.edits == nullptr || po.edits->rename_count == 0 || check_renames(model, *po.edits, &c) ||
        c.problem == rename_problem::none)
        return std::string();
    std::string s = rename_text(po.edits->renames[c.change]) + ": " + rename_problem_message(c.problem);
    if (c.problem == rename_problem::old_name_repeated || c.problem == rename_problem::new_name_repeated ||
        c.problem == rename_problem::chained)
        s += " (" + rename_text(po.edits->renames[c.other]) + ")";
    if (c.problem == rename_problem::new_name_in_use) {
        s += " (" + where(c.offset, model.data(), model.size()) + ")";
    }
    return s;
}

}  // namespace

std::string system_text(error e) {
    std::string s = errc_message(e.code);
    if (e.sys_errno != 0) s += std::string(" (") + std::strerror(e.sys_errno) + ")";
    return s;
}

std::string directory_of(const char* path) {
    const std::string p(path);
    const std::size_t slash = p.find_last_of("/\\");
    return slash == std::string::npos ? std::string() : p.substr(0, slash + 1);
}

std::string file_name_of(const char* path) {
    const std::string p(path);
    return p.substr(directory_of(path).size());
}

bool same_file(const char* a, const char* b) {
    std::error_code ec;
    return std::filesystem::equivalent(a, b, ec) && !ec;
}

bool same_directory(const char* a, const char* b) {
    const std::string da = directory_of(a), db = directory_of(b);
    std::error_code ec;
    return da == db || (std::filesystem::equivalent(da.empty() ? "." : da, db.empty() ? "." : db, ec) && !ec);
}

void remove_on_signal(const char* model, const char* data) {
    pending[0] = model;
    pending[1] = data;
    std::signal(SIGINT, remove_pending);
    std::signal(SIGTERM, remove_pending);
}

void forget_on_signal() { pending[0] = pending[1] = nullptr; }

int write_failure(const char* cmd, const std::string& message, int code) {
    print_error(cmd, message);
    return code;
}

int write_model(const char* cmd, const char* in, const char* out_path, pack_options po, const char* external,
                bool verify, std::uint64_t dims_expected, bool putting_back, std::string_view replaced) {
    if (same_file(in, out_path) || std::string_view(in) == out_path)
        return write_failure(cmd, "OUT '" + std::string(out_path) + "' is the input; write to another file", exit_usage);
    const std::string external_path = external ? directory_of(out_path) + external : std::string();
    if (external != nullptr && same_file(in, external_path.c_str()))
        return write_failure(cmd, "--external '" + external_path + "' is the input; choose another name", exit_usage);
    // Both would be renamed onto one path, the model last: its data lost.
    if (external != nullptr && (external_path == out_path || same_file(out_path, external_path.c_str())))
        return write_failure(cmd, "--external '" + external_path + "' is OUT; choose another name", exit_usage);
    options opts{};
    opts.verify = true;
    opts.drop_verified_pages = true;  // the resident set stays small whatever the tensor count
    opts.file_hint = access_hint::sequential;  // payloads are read front to back, once
    model_file mf;
    int code = exit_ok;
    if (replaced.empty()) {
        if (!open_model(cmd, in, opts, mf, code)) return code;
    } else {
        opts.model_path = in;
        result<model_file> adopted = model_file::adopt(mapped_file::from_memory(replaced.data(), replaced.size()), opts);
        if (!adopted) return write_failure(cmd, "'" + std::string(in) + "': " + describe(adopted.err()), exit_findings);
        mf = std::move(adopted.value());
    }
    for (const char* target : {out_path, external ? external_path.c_str() : nullptr}) {
        const std::string data = target ? input_data_at(mf, in, target) : std::string();
        if (!data.empty())
            return write_failure(cmd, "'" + std::string(target) + "' holds the external data '" + data + "' of '" + in +
                                          "'; write to another file",
                                 exit_usage);
    }

    result<output_file> created = output_file::create(out_path);
    if (!created)
        return write_failure(cmd, "cannot create a file in the directory of '" + std::string(out_path) + "': " + system_text(created.err()),
                    exit_usage);
    output_file* out = &created.value();
    output_file data;
    if (external != nullptr) {
        result<output_file> d = output_file::create(external_path.c_str());
        if (!d) return write_failure(cmd, "cannot create '" + external_path + "': " + system_text(d.err()), exit_usage);
        data = std::move(d.value());
    }
    remove_on_signal(out->temp_path(), external ? data.temp_path() : nullptr);
    // The paths die with this function: the handler must not see them after.
    struct forget_pending {
        ~forget_pending() { forget_on_signal(); }
    } forget;

    if (external != nullptr) po.external_location = external;
    po.payload_written = payload_written;
    // Payloads are copied file to file where the system can (copy_file_range).
    // (Replaced bytes are not IN's: their offsets are not the file's.)
    result<read_descriptor> input_fd = read_descriptor::open(in);
    if (input_fd && replaced.empty()) po.source_fd = input_fd.value().get();
    progress_line line(cmd);
    pack_state state{&mf.file(), &line};
    po.progress = show_progress;
    po.user = &state;
    const external_payload_source source = mf.external();
    const write_sink model_sink = out->sink();
    const write_sink data_sink = external ? data.sink() : write_sink{};
    pack_stats st;
    const error e = pack_model(mf.bytes(), &source, po, model_sink, external ? &data_sink : nullptr, &st);
    line.finish();
    if (e) {
        const std::string refused = rename_failure(po, mf.bytes());
        if (!refused.empty()) return write_failure(cmd, refused, exit_usage);
        if (po.edits != nullptr && !po.edits->prefix.empty() && e.code == errc::invalid_argument)
            return write_failure(cmd, "--prefix " + std::string(po.edits->prefix) +
                                          ": a subgraph declares the prefixed name of a main-graph value it reads (" +
                                          where(e.offset, mf.bytes().data(), mf.bytes().size()) +
                                          "), which would capture the reference",
                                 exit_usage);
        if (e.code == errc::io_write_failed)
            return write_failure(cmd, "cannot write '" + std::string(out_path) + "': " + system_text(e), exit_usage);
        if (e.code == errc::message_too_large)
            return write_failure(cmd, "OUT would be " + std::to_string(e.offset) +
                            " bytes, over 2 GiB, which libprotobuf-based readers cannot open; use --external NAME, "
                            "or --allow-over-2gib",
                        exit_usage);
        if (errc_group(e.code) == errc::io_error || errc_group(e.code) == errc::external_path_unsafe ||
            errc_group(e.code) == errc::external_out_of_bounds || errc_group(e.code) == errc::external_bad_entry)
            return write_failure(cmd, "cannot read the external data of '" + std::string(in) + "': " +
                            describe(e, mf.bytes().data(), mf.bytes().size()),
                        exit_usage);
        if (po.edits != nullptr && po.edits->extract != nullptr && po.edits->extract->report != nullptr &&
            po.edits->extract->report->problem != extract_problem::none)
            return write_failure(cmd, "--extract: " + describe_extract_problem(*po.edits->extract->report),
                                 po.edits->extract->report->problem == extract_problem::undefined_value ? exit_findings
                                                                                                        : exit_usage);
        if (po.edits != nullptr && po.edits->cycle != nullptr && po.edits->cycle->cycle) {
            const toposort_report& c = *po.edits->cycle;
            std::string where = "node '";
            text_quote(where, c.node);
            where += "' (value '";
            text_quote(where, c.value);
            return write_failure(cmd, "--toposort: '" + std::string(in) + "' has a cycle: " + where +
                                          "') is on it, at byte " + std::to_string(e.offset),
                                 exit_findings);
        }
        return write_failure(cmd, "'" + std::string(in) + "': " + describe(e, mf.bytes().data(), mf.bytes().size()), exit_findings);
    }
    if (st.dims_set < dims_expected)
        return write_failure(cmd, "--set-dim: " + std::to_string(dims_expected - st.dims_set) +
                                      " of the dims named is not in a main-graph input or output of '" + in + "'",
                             exit_usage);
    if (putting_back && st.unreadable != 0)
        return write_failure(cmd,
                             std::to_string(st.unreadable) + " tensors of the proxy '" + std::string(in) +
                                 "' have no valid payload (did a tool drop their external_data references?): "
                                 "their weights cannot be put back",
                             exit_findings);
    if (st.external_kept != 0 && !same_directory(in, out_path))
        return write_failure(cmd,
                             std::to_string(st.external_kept) +
                                 " external tensors would keep locations relative to the directory of '" +
                                 std::string(in) + "', not of OUT: write OUT there" +
                                 (std::strcmp(cmd, "pack") == 0 ? ", or use --internalize or --external NAME" : ""),
                             exit_usage);
    pending[1] = nullptr;  // commit frees the temporary path
    if (external != nullptr)
        if (error c = data.commit()) return write_failure(cmd, "cannot write '" + external_path + "': " + system_text(c), exit_usage);
    // Until OUT is in place the external file it names goes with it.
    pending[1] = external ? external_path.c_str() : nullptr;
    if (verify) {
        options check{};
        check.model_path = out_path;  // external data resolves next to OUT
        result<model_file> written = model_file::open(out->temp_path(), check);
        error v = written ? written.value().model_error() : written.err();
        std::uint64_t compared = 0;
        if (!v) {
            const external_payload_source written_source = written.value().external();
            v = same_tensors(mf.bytes(), &source, written.value().bytes(), &written_source, {}, &compared);
        }
        if (v) {
            if (external != nullptr) std::remove(external_path.c_str());
            return write_failure(cmd, "verify: the output differs from '" + std::string(in) + "': " + describe(v), exit_findings);
        }
        std::printf("verified: %llu tensors equal bit for bit\n", static_cast<unsigned long long>(compared));
    }
    pending[0] = nullptr;  // commit frees the temporary path
    if (error c = out->commit()) {
        if (external != nullptr) std::remove(external_path.c_str());
        return write_failure(cmd, "cannot write '" + std::string(out_path) + "': " + system_text(c), exit_usage);
    }
    pending[0] = pending[1] = nullptr;
    (void)forget;
    if (std::strcmp(cmd, "pack") != 0) {
        std::printf("%sed '%s' -> '%s': %llu bytes", cmd, in, out_path, static_cast<unsigned long long>(st.model_bytes));
        if (po.edits != nullptr && po.edits->toposort)
            std::printf(", %llu nodes moved into topological order", static_cast<unsigned long long>(st.nodes_moved));
        std::printf("\n");
        return exit_ok;
    }
    std::printf("packed '%s' -> '%s': %llu tensors (%llu aligned, %llu converted from typed fields, %llu moved to "
                "external data (%llu sharing a range), %llu brought back, %llu kept); %llu bytes",
                in, out_path, static_cast<unsigned long long>(st.tensors), static_cast<unsigned long long>(st.aligned),
                static_cast<unsigned long long>(st.converted), static_cast<unsigned long long>(st.externalized),
                static_cast<unsigned long long>(st.deduplicated), static_cast<unsigned long long>(st.internalized), static_cast<unsigned long long>(st.kept),
                static_cast<unsigned long long>(st.model_bytes));
    if (external != nullptr)
        std::printf(", '%s' %llu bytes", external_path.c_str(), static_cast<unsigned long long>(st.external_bytes));
    if (!po.reference.location.empty())
        std::printf(", %llu tensors referencing their bytes in '%s'", static_cast<unsigned long long>(st.referenced),
                    in);
    std::printf("\n");
    return exit_ok;
}


}  // namespace onnxview_cli
