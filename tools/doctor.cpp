// tools/doctor.cpp - `onnxview doctor`: is this file a usable ONNX model,
// what is it when it is not, and how ready are its weights to be used in
// place.
//
// A file that is not a model gets its diagnosis (onnxview/diagnose.hpp) and
// nothing else. A model gets: its parameters wherever they are stored
// (tensor_census.hpp), the alignment and zero-copy readiness of every
// payload and the problems of its external data (zero_copy.hpp), and a word
// on files over 2 GiB.
#include <cstdio>
#include <string>
#include <string_view>

#include "onnxview/model_file.hpp"
#include "duplicates.hpp"
#include "options.hpp"
#include "output.hpp"
#include "subcommand.hpp"
#include "tensor_census.hpp"
#include "write_output.hpp"
#include "zero_copy.hpp"

namespace onnxview_cli {
namespace {

using namespace onnxview;

struct arguments {
    const char* file = nullptr;
    bool json = false;
    bool duplicates = false;
};

command_line make_command_line(arguments& a) {
    return {"doctor",
            "what a file is when it is not a model; parameters,\n"
            "zero-copy readiness and external data of one that is",
            "Says in one line what FILE is when it is not a usable ONNX model: a Git LFS\n"
            "pointer, a web page, JSON or other text, an archive (zip, tar, gzip, xz,\n"
            "zstd, 7z; tf2onnx's zip of a .onnx, a PyTorch checkpoint), a model of\n"
            "another format (ONNX Runtime .ort, TensorFlow Lite, safetensors, GGUF,\n"
            "NumPy, HDF5, pickle, TensorFlow GraphDef or SavedModel, Core ML), another\n"
            "ONNX message (TensorProto, GraphProto, SequenceProto, OptionalProto,\n"
            "MapProto: the test data of onnx's backend tests), an empty, truncated or\n"
            "zero-filled file. Detection is by content, never by file name.\n"
            "\n"
            "For a model: parameters and bytes in initializers, Constant nodes and tensor\n"
            "attributes, by data type; for the raw_data in the file and for each external\n"
            "file, how many payloads start at offsets aligned to their element size, 64 B,\n"
            "4 KiB and 64 KiB, and how many onnxview hands out zero-copy on this host\n"
            "(tensor_data::as_span) or must copy; typed fields (float_data, ...); missing\n"
            "or short external files and unsafe paths; files over 2 GiB, which\n"
            "libprotobuf-based readers cannot open.\n"
            "\n"
            "With --duplicates, also tensors stored more than once (same data type, dims\n"
            "and values, in any storage) and the bytes the extra copies take; this reads\n"
            "the payloads of tensors that share data type and dims, where the rest of\n"
            "doctor reads metadata only. Duplicates are not findings.\n"
            "\n"
            "Last, the onnxview pack command that fixes what doctor found, when pack\n"
            "can: payloads of at least 1 KiB copied for their alignment, typed fields,\n"
            "a file over 2 GiB, duplicated tensors of at least 1 KiB.\n",
            "exit status: 0 a healthy model, 1 findings (not a model, or external data\n"
            "problems), 2 usage or I/O error\n",
            {flag("json", 0, a.json, "one JSON object on stdout, for scripts"),
             flag("duplicates", 0, a.duplicates, "also find tensors stored more than once (reads their payloads)")},
            {{"FILE", &a.file}}};
}

// protobuf refuses to parse a message of more than INT_MAX bytes.
constexpr std::uint64_t protobuf_limit = 2147483647;

std::string q(std::string_view s) {
    std::string out;
    text_quote(out, s);
    return out;
}

std::string n(std::uint64_t v) { return std::to_string(v); }

std::string tensors(std::uint64_t count) { return n(count) + (count == 1 ? " tensor" : " tensors"); }

std::string tensors_and_bytes(const count_and_bytes& c) { return tensors(c.tensors) + " (" + n(c.bytes) + " bytes)"; }

// "3968 in 11 tensors, 15881 bytes"
std::string parameters(const totals& t) { return n(t.elements) + " in " + tensors(t.tensors) + ", " + n(t.bytes) + " bytes"; }

std::string over_2gib_note(std::uint64_t size) {
    return "the file is " + n(size) +
           " bytes, over 2 GiB: readers built on libprotobuf (onnx.load, onnx.checker, ONNX Runtime, "
           "protoc) refuse a message over 2 GiB; onnxview reads it. Store the weights as external data "
           "for the others (onnxview pack --external, below)";
}

// A command that makes the model better for readers, and why.
struct fix {
    std::string command;
    std::string why;
};

// The pack command for each problem doctor found that pack solves. OUT and
// NAME are suggestions next to the model: "m.onnx" -> "m.packed.onnx",
// "m.packed.data".
std::vector<fix> fixes_for(const char* path, std::uint64_t size, const zero_copy_report& z,
                           const duplicate_report* dup) {
    const std::string shown = shown_path(path);
    std::string stem = shown;
    if (stem.size() > 5 && stem.compare(stem.size() - 5, 5, ".onnx") == 0) stem.resize(stem.size() - 5);
    std::string pack = "onnxview pack ";
    text_quote(pack, shown);
    pack += " ";
    text_quote(pack, stem + ".packed.onnx");
    std::string external = pack + " --external ";
    text_quote(external, file_name_of(stem.c_str()) + ".packed.data");
    bool external_unaligned = false;
    for (const auto& kv : z.external) external_unaligned = external_unaligned || kv.second.packable.tensors > 0;
    std::vector<fix> out;
    if (size > protobuf_limit) {
        out.push_back({external, "moves the weights to an external file, so that every reader opens the model"});
    } else if (z.embedded.packable.tensors > 0 || z.typed.packable.tensors > 0) {
        out.push_back({pack, "aligns raw_data payloads of at least 1 KiB to 64 bytes and turns typed fields into "
                             "raw_data, so that they are used in place"});
    }
    if (external_unaligned && size <= protobuf_limit)
        out.push_back({external, "rewrites the external data with every payload at a 4 KiB boundary"});
    std::uint64_t dedupable = 0;  // pack --dedupe shares ranges of the payloads it moves
    if (dup != nullptr)
        for (const duplicate_group& g : dup->groups) dedupable += g.bytes >= pack_threshold ? g.wasted() : 0;
    if (dedupable > 0)
        out.push_back({external + " --dedupe", "stores each duplicated tensor of at least 1 KiB once (" +
                                                   n(dedupable) + " bytes saved)"});
    return out;
}

std::uint64_t finding_count(const zero_copy_report& z) { return z.problems.size(); }

// ---- text -----------------------------------------------------------------

void text_group(std::string& o, const std::string& title, const payload_group& g) {
    o += "  " + title + ": " + tensors_and_bytes(g.all) + "\n";
    o += "    aligned to element size " + tensors_and_bytes(g.aligned_element) + ", 64 B " +
         tensors_and_bytes(g.aligned_64) + ", 4 KiB " + tensors_and_bytes(g.aligned_4k) + ", 64 KiB " +
         tensors_and_bytes(g.aligned_64k) + "\n";
    o += "    zero-copy " + tensors_and_bytes(g.zero_copy) + ", copied " + tensors_and_bytes(g.copied);
    std::string reasons;
    for (const auto& kv : g.copy_reasons) reasons += (reasons.empty() ? "" : ", ") + kv.first + " " + n(kv.second);
    if (!reasons.empty()) o += ": " + reasons;
    o += "\n";
}

std::string dims_text(const std::vector<std::int64_t>& dims) {
    std::string o = "[";
    for (std::size_t i = 0; i < dims.size(); ++i) o += (i ? "," : "") + std::to_string(dims[i]);
    return o + "]";
}

// The groups wasting most, one line each; the JSON output lists every group.
constexpr std::size_t duplicate_groups_shown = 20;

void text_duplicates(std::string& o, const duplicate_report& r) {
    o += "duplicates (same data type, dims and values; " + n(r.bytes_read) + " payload bytes read): ";
    if (r.groups.empty()) {
        o += "none";
    } else {
        o += n(r.groups.size()) + (r.groups.size() == 1 ? " group, " : " groups, ") + n(r.redundant_copies) +
             (r.redundant_copies == 1 ? " redundant copy of " : " redundant copies of ") + n(r.wasted_bytes) +
             " bytes";
    }
    if (r.unreadable) o += " (" + n(r.unreadable) + " unreadable, not compared)";
    o += "\n";
    for (std::size_t i = 0; i < r.groups.size() && i < duplicate_groups_shown; ++i) {
        const duplicate_group& g = r.groups[i];
        o += "  " + g.data_type + " " + dims_text(g.dims) + ", " + n(g.bytes) + " bytes x " + n(g.tensors.size());
        if (g.stored != g.tensors.size()) o += " (stored " + n(g.stored) + (g.stored == 1 ? " time)" : " times)");
        o += ":";
        for (std::size_t k = 0; k < g.tensors.size(); ++k) o += (k ? ", " : " ") + g.tensors[k];
        o += "\n";
    }
    if (r.groups.size() > duplicate_groups_shown)
        o += "  ... " + n(r.groups.size() - duplicate_groups_shown) + " more groups (--json lists them all)\n";
}

void print_text(const char* path, std::uint64_t size, const diagnosis& d, const tensor_census& c,
                const zero_copy_report& z, const duplicate_report* dup) {
    const std::vector<fix> fixes = fixes_for(path, size, z, dup);
    std::string o = "file: " + q(shown_path(path)) + " (" + n(size) + " bytes)\n";
    o += "diagnosis: " + diagnosis_line(d, path) + "\n";
    o += "parameters: " + parameters(c.all) + "\n";
    static const char* const origin_titles[] = {"initializers", "sparse initializers", "Constant nodes",
                                                "other tensor attributes"};
    for (std::size_t i = 0; i < tensor_origin_count; ++i) {
        const totals& t = c.by_origin[i];
        if (t.tensors == 0) continue;
        o += std::string("  ") + origin_titles[i] + ": " + parameters(t) + "\n";
    }
    for (const auto& kv : c.by_data_type)
        o += "  " + kv.first + ": " + parameters(kv.second) + "\n";
    if (c.bad_sizes) o += "  (" + n(c.bad_sizes) + " with invalid dims, not counted)\n";
    o += "zero-copy readiness (offsets in the file holding each payload):\n";
    text_group(o, "raw_data in the model file", z.embedded);
    for (const auto& kv : z.external) {
        std::string title = "external " + q(kv.first);
        if (kv.second.file_size >= 0)
            title += std::string(" (") + n(static_cast<std::uint64_t>(kv.second.file_size)) + " bytes, " +
                     (kv.second.read_into_memory ? "under 64 KiB: read into memory, spans point into that copy" : "mapped") + ")";
        else
            title += " (not readable)";
        text_group(o, title, kv.second);
    }
    o += "  typed fields (float_data, int32_data, ...): " + tensors_and_bytes(z.typed.all) + "; zero-copy " +
         tensors_and_bytes(z.typed.zero_copy) + " (FLOAT, DOUBLE, COMPLEX as one packed chunk), copied " +
         tensors_and_bytes(z.typed.copied) + "\n";
    if (z.strings || z.empty || z.unreadable)
        o += "  not viewed: " + n(z.strings) + " STRING, " + n(z.empty) + " empty, " + n(z.unreadable) +
             " whose payload does not validate\n";
    if (dup != nullptr) text_duplicates(o, *dup);
    if (size > protobuf_limit) o += "size: " + over_2gib_note(size) + "\n";
    if (z.problems.empty()) {
        if (!z.external.empty())
            o += "external data: " + n(z.external.size()) + (z.external.size() == 1 ? " file" : " files") +
                 ", no problems\n";
    } else {
        o += "external data problems (" + n(z.problems.size()) + "):\n";
        for (const external_problem& p : z.problems) o += "  " + p.kind + ": " + p.message + "\n";
    }
    for (const fix& f : fixes) o += "fix: " + f.command + "\n  " + f.why + "\n";
    o += "findings: " + n(finding_count(z)) + "\n";
    std::fwrite(o.data(), 1, o.size(), stdout);
}

// ---- JSON -----------------------------------------------------------------

void json_counts(json_writer& w, std::string_view key, const count_and_bytes& c) {
    w.key(key);
    w.begin_object();
    w.field("tensors", c.tensors);
    w.field("bytes", c.bytes);
    w.end_object();
}

void json_group(json_writer& w, const payload_group& g) {
    json_counts(w, "all", g.all);
    w.key("aligned");
    w.begin_object();
    json_counts(w, "element", g.aligned_element);
    json_counts(w, "64", g.aligned_64);
    json_counts(w, "4096", g.aligned_4k);
    json_counts(w, "65536", g.aligned_64k);
    w.end_object();
    json_counts(w, "zero_copy", g.zero_copy);
    json_counts(w, "copied", g.copied);
    w.key("copy_reasons");
    w.begin_object();
    for (const auto& kv : g.copy_reasons) w.field(kv.first, kv.second);
    w.end_object();
}

void json_diagnosis(json_writer& w, const diagnosis& d, const char* path) {
    w.key("diagnosis");
    w.begin_object();
    w.field("kind", diagnosis_kind_name(d.kind));
    w.field("healthy", d.healthy());
    w.field("line", diagnosis_line(d, path));
    if (!d.detail.empty()) w.field("detail", d.detail);
    if (d.kind == diagnosis_kind::truncated) w.field("expected_size", d.expected_size);
    if (d.kind == diagnosis_kind::zero_filled_tail) w.field("zero_tail_offset", d.zero_tail_offset);
    w.end_object();
}

void json_duplicates(json_writer& w, const duplicate_report& r) {
    w.key("duplicates");
    w.begin_object();
    w.key("groups");
    w.begin_array();
    for (const duplicate_group& g : r.groups) {
        w.begin_object();
        w.field("data_type", g.data_type);
        w.key("dims");
        w.begin_array();
        for (std::int64_t d : g.dims) w.value(d);
        w.end_array();
        w.field("bytes", g.bytes);
        w.key("tensors");
        w.begin_array();
        for (const std::string& t : g.tensors) w.value(std::string_view(t));
        w.end_array();
        w.field("stored", g.stored);
        w.field("wasted_bytes", g.wasted());
        w.end_object();
    }
    w.end_array();
    w.field("redundant_copies", r.redundant_copies);
    w.field("wasted_bytes", r.wasted_bytes);
    w.field("bytes_read", r.bytes_read);
    w.field("unreadable", r.unreadable);
    w.end_object();
}

void print_json(const char* path, std::uint64_t size, const diagnosis& d, const tensor_census* c,
                const zero_copy_report* z, const duplicate_report* dup) {
    json_writer w;
    w.begin_object();
    w.field("file", shown_path(path));
    w.field("file_size", size);
    json_diagnosis(w, d, path);
    if (c != nullptr && z != nullptr) {
        w.key("parameters");
        json_totals(w, c->all);
        w.key("by_origin");
        w.begin_object();
        for (std::size_t i = 0; i < tensor_origin_count; ++i) {
            w.key(tensor_origin_name(static_cast<tensor_origin>(i)));
            json_totals(w, c->by_origin[i]);
        }
        w.end_object();
        w.key("by_data_type");
        w.begin_object();
        for (const auto& kv : c->by_data_type) {
            w.key(kv.first);
            json_totals(w, kv.second);
        }
        w.end_object();
        w.key("zero_copy");
        w.begin_object();
        w.key("embedded");
        w.begin_object();
        json_group(w, z->embedded);
        w.end_object();
        w.key("external");
        w.begin_array();
        for (const auto& kv : z->external) {
            w.begin_object();
            w.field("location", kv.first);
            w.key("file_size");
            if (kv.second.file_size >= 0) w.value(kv.second.file_size);
            else w.null();
            w.field("read_into_memory", kv.second.read_into_memory);
            json_group(w, kv.second);
            w.end_object();
        }
        w.end_array();
        w.key("typed");
        w.begin_object();
        json_counts(w, "all", z->typed.all);
        json_counts(w, "zero_copy", z->typed.zero_copy);
        json_counts(w, "copied", z->typed.copied);
        w.end_object();
        w.field("strings", z->strings);
        w.field("empty", z->empty);
        w.field("unreadable", z->unreadable);
        w.end_object();
        if (dup != nullptr) json_duplicates(w, *dup);
        w.field("over_2gib", size > protobuf_limit);
        if (size > protobuf_limit) w.field("over_2gib_note", over_2gib_note(size));
        w.key("external_problems");
        w.begin_array();
        for (const external_problem& p : z->problems) {
            w.begin_object();
            w.field("kind", p.kind);
            w.field("location", p.location);
            w.field("tensor", p.tensor);
            w.field("message", p.message);
            w.end_object();
        }
        w.end_array();
        w.key("fixes");
        w.begin_array();
        for (const fix& f : fixes_for(path, size, *z, dup)) {
            w.begin_object();
            w.field("command", f.command);
            w.field("why", f.why);
            w.end_object();
        }
        w.end_array();
        w.field("findings", finding_count(*z));
    } else {
        w.field("findings", std::uint64_t(1));
    }
    w.end_object();
    std::fwrite(w.str().data(), 1, w.str().size(), stdout);
}

int run(arguments& a) {
    const char* path = a.file;
    options opts{};
    opts.keep_malformed = true;
    opts.reads = model_reads::metadata;
    model_file mf;
    if (is_url(path)) {
        // doctor weighs every payload (zero-copy, duplicates): a remote file is fetched whole.
        opts.reads = model_reads::everything;
        int code = exit_ok;
        if (!open_model("doctor", path, opts, mf, code)) return code;
    } else {
        auto opened = model_file::open(path, opts);
        if (!opened && opened.err().code != errc::file_empty) {
            print_error("doctor", open_error_message(path, opened.err()));
            return exit_usage;
        }
        if (opened) mf = std::move(opened.value());
    }
    const std::string_view bytes = mf.bytes();
    const diagnosis d = diagnose(bytes.data(), bytes.size(), opts);
    if (!d.healthy()) {
        if (a.json) {
            print_json(path, bytes.size(), d, nullptr, nullptr, nullptr);
        } else {
            const std::string o = "file: " + q(shown_path(path)) + " (" + n(bytes.size()) + " bytes)\ndiagnosis: " +
                                  diagnosis_line(d, path) + "\nfindings: 1\n";
            std::fwrite(o.data(), 1, o.size(), stdout);
        }
        return exit_findings;
    }
    // diagnose() verified the whole model: the views below meet no malformed byte.
    const model_view m = parse_model(bytes.data(), bytes.size(), opts);
    const tensor_census census = take_census(m);
    const zero_copy_report z = assess_payloads(census, path);
    duplicate_report dup;
    if (a.duplicates) dup = find_duplicates(census, path);
    const duplicate_report* shown = a.duplicates ? &dup : nullptr;
    if (a.json) print_json(path, bytes.size(), d, &census, &z, shown);
    else print_text(path, bytes.size(), d, census, z, shown);
    return finding_count(z) == 0 ? exit_ok : exit_findings;
}

}  // namespace

const subcommand doctor_subcommand = make_subcommand<arguments, make_command_line, run>();

}  // namespace onnxview_cli
