// tools/tensor_cmd.cpp - `onnxview tensor`: one tensor's type, shape, storage and values.
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "onnxview/external_data.hpp"
#include "onnxview/model.hpp"
#include "onnxview/model_file.hpp"
#include "onnxview/sparse_data.hpp"
#include "onnxview/tensor_data.hpp"
#include "options.hpp"
#include "output.hpp"
#include "subcommand.hpp"
#include "tensor_find.hpp"

namespace onnxview_cli {
namespace {

using namespace onnxview;

struct context {
    // From the command line.
    const char* path = nullptr;
    const char* name = nullptr;
    std::uint64_t count = 10;
    bool json = false;

    model_file* model = nullptr;

    // An error with the field path of its offset in the model.
    std::string describe_error(error e) const { return describe(e, model->bytes().data(), model->bytes().size()); }
    // Why reading a payload failed. An error at an external payload's tensor
    // names the tensor and its location (the resolver's errors point there).
    std::string why(error e, std::initializer_list<tensor_view> payloads) const {
        for (const tensor_view& t : payloads) {
            const wire::message& m = t.wire_message();
            if (t.data_location() == location_kind::external && e.offset == m.offset_of(m.begin())) {
                char text[512];
                return describe_external_error(e, t, text, sizeof text);
            }
        }
        return describe_error(e);
    }
};

command_line make_command_line(context& c) {
    return {"tensor",
            "type, shape, storage and values of one tensor\n"
            "(dense or sparse)",
            "Describes one tensor of a model, found by NAME among:\n"
            "  - initializers and sparse initializers (a sparse initializer's name is\n"
            "    its values tensor's name, as ONNX defines it);\n"
            "  - Constant nodes whose output is NAME, with a `value` (dense) or a\n"
            "    `sparse_value` (sparse) attribute;\n"
            "in the main graph and training graphs first, then in every subgraph\n"
            "(If/Loop/Scan bodies, at any depth), then in the Constant nodes of\n"
            "model-local functions. When\n"
            "several match (e.g. the then and else branches of an If), the first is\n"
            "described and the others are listed (`also:`).\n"
            "\n"
            "Dense tensors: where it is, data type, shape and element count, storage\n"
            "(raw_data, a typed field, or external: file, offset, length, alignment),\n"
            "the first N values and, for numeric types, min/max/mean over all elements\n"
            "(complex: over real and imaginary parts; NaNs are counted apart).\n"
            "\n"
            "Sparse tensors (COO): data type, dense shape and element count, nnz, the\n"
            "indices layout (`coordinates`: INT64 [nnz, rank]; `linear`: INT64 [nnz],\n"
            "row-major positions), the storage of values and of indices, the first N\n"
            "stored values with their dense coordinates, and min/max/mean over the\n"
            "stored values only (the implicit zeros are not counted). Indices out of\n"
            "range or not strictly increasing are reported as an error (exit 1).\n",
            "exit status: 0 ok, 1 no such tensor or the tensor/model is invalid,\n"
            "             2 usage or I/O error\n",
            {number(nullptr, 'n', "N", c.count, 0, std::numeric_limits<std::uint64_t>::max(),
                    "print the first N values (default 10; 0: none)"),
             flag("json", 0, c.json,
                  "one JSON object instead of text: name, where, offset, sparse,\n"
                  "data_type, data_type_code, dims, element_count, storage {kind,\n"
                  "offset, bytes, alignment, field, entries, location, length,\n"
                  "external_data}, values, values_total, stats {count, nan, min,\n"
                  "max, mean}, also; sparse tensors add nnz and indices {name,\n"
                  "layout, dims, storage}, and each value is {index: [coordinates],\n"
                  "linear, value}. Integers are exact JSON numbers (INT64/UINT64\n"
                  "too); floats round-trip their type; NaN and infinities, which\n"
                  "JSON lacks, are the strings \"NaN\", \"Infinity\", \"-Infinity\"\n"
                  "(as the protobuf JSON mapping writes them); complex values are\n"
                  "[real, imaginary]; min/max/mean are null when there is no\n"
                  "number to summarize; stats is null for STRING. On an error\n"
                  "nothing is written to stdout.")},
            // A tensor's name may start with '-': after MODEL, `-x` is a NAME.
            {{"MODEL", &c.path}, {"NAME", &c.name, true}}};
}

template <class View>
std::uint64_t offset_of(const View& v) {
    const wire::message& m = v.wire_message();
    return m.begin() ? m.offset_of(m.begin()) : 0;
}

// --- numbers -----------------------------------------------------------------

// Text output: 9 significant digits (every float round-trips).
std::string fmt_double(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
}

// JSON output: the shortest %g precision that round-trips the value as the
// tensor's type (9 digits for float and narrower types, 17 for double); NaN
// and infinities as protobuf's JSON mapping writes them (strings).
std::string json_number(double v, bool is_double) {
    if (std::isnan(v)) return "\"NaN\"";
    if (std::isinf(v)) return v > 0 ? "\"Infinity\"" : "\"-Infinity\"";
    char buf[40];
    std::snprintf(buf, sizeof buf, is_double ? "%.17g" : "%.9g", v);
    return buf;
}

bool is_double_type(const data_type_info& info) {
    return info.natural == natural_type::f64 || info.natural == natural_type::c128;
}

std::string element_string(const tensor_data& d, std::uint64_t k) {
    const data_type_info& info = d.info();
    if (info.kind == element_kind::string) {
        auto s = d.at<std::string_view>(k);
        std::string out = "\"";
        if (s) text_quote(out, *s);
        return out + "\"";
    }
    double im = 0;
    auto v = d.double_at(k, &im);
    if (!v) return "?";
    switch (info.kind) {
        case element_kind::signed_int:
        case element_kind::unsigned_int:
            if (info.natural == natural_type::i64) {
                auto x = d.at<std::int64_t>(k);
                if (x) return std::to_string(*x);
            } else if (info.natural == natural_type::u64) {
                auto x = d.at<std::uint64_t>(k);
                if (x) return std::to_string(*x);
            }
            return fmt_double(*v);
        case element_kind::boolean: return *v != 0 ? "true" : "false";
        case element_kind::complex: return "(" + fmt_double(*v) + (im < 0 ? "" : "+") + fmt_double(im) + "j)";
        default: return fmt_double(*v);
    }
}

// Writes element k as a JSON value; false when it cannot be read.
bool json_element(json_writer& w, const tensor_data& d, std::uint64_t k) {
    const data_type_info& info = d.info();
    if (info.kind == element_kind::string) {
        auto s = d.at<std::string_view>(k);
        if (!s) return false;
        w.value(*s);
        return true;
    }
    double im = 0;
    auto v = d.double_at(k, &im);
    if (!v) return false;
    switch (info.kind) {
        case element_kind::signed_int:
        case element_kind::unsigned_int:
            if (info.natural == natural_type::i64) {
                auto x = d.at<std::int64_t>(k);
                if (!x) return false;
                w.value(*x);
            } else if (info.natural == natural_type::u64) {
                auto x = d.at<std::uint64_t>(k);
                if (!x) return false;
                w.value(*x);
            } else {
                w.value(static_cast<std::int64_t>(*v));  // at most 32 bits: exact in a double
            }
            return true;
        case element_kind::boolean: w.value(*v != 0); return true;
        case element_kind::complex:
            w.begin_array();
            w.number(json_number(*v, is_double_type(info)));
            w.number(json_number(im, is_double_type(info)));
            w.end_array();
            return true;
        default: w.number(json_number(*v, is_double_type(info))); return true;
    }
}

// min/max/mean over every scalar (complex: both parts), NaNs counted apart.
struct stats {
    bool numeric = false;
    std::uint64_t count = 0, nans = 0;
    double lo = INFINITY, hi = -INFINITY, sum = 0;
};

stats compute_stats(const tensor_data& d) {
    stats s;
    if (d.info().kind == element_kind::string) return s;
    s.numeric = true;
    for (double v : d.scalars<double>()) {
        if (std::isnan(v)) {
            ++s.nans;
            continue;
        }
        s.lo = std::min(s.lo, v);
        s.hi = std::max(s.hi, v);
        s.sum += v;
        ++s.count;
    }
    return s;
}

void text_stats(std::string& o, const stats& s) {
    if (!s.numeric) return;
    if (s.count > 0)
        o += "min: " + fmt_double(s.lo) + "\nmax: " + fmt_double(s.hi) + "\nmean: " +
             fmt_double(s.sum / double(s.count)) + "\n";
    if (s.nans) o += "nan: " + std::to_string(s.nans) + "\n";
}

void json_stats(json_writer& w, const stats& s, bool is_double) {
    w.key("stats");
    if (!s.numeric) {
        w.null();
        return;
    }
    w.begin_object();
    w.field("count", s.count);
    w.field("nan", s.nans);
    const char* names[] = {"min", "max", "mean"};
    const double vals[] = {s.lo, s.hi, s.count ? s.sum / double(s.count) : 0.0};
    for (int i = 0; i < 3; ++i) {
        w.key(names[i]);
        if (s.count == 0) w.null();
        else w.number(json_number(vals[i], is_double || i == 2));
    }
    w.end_object();
}

// --- storage -------------------------------------------------------------------

void text_storage(std::string& o, const storage_info& si, const char* prefix) {
    o += std::string(prefix) + "storage: " + storage_kind_name(si.kind);
    if (si.kind == storage_kind::typed)
        o += std::string(" (") + typed_field_name(si.field) + ", " + std::to_string(si.entry_count) + " entries)";
    o += "\n";
    if (si.kind == storage_kind::external) {
        o += std::string(prefix) + "location: ";
        text_quote(o, si.location);
        o += "\n";
    }
    if (si.kind != storage_kind::none)
        o += std::string(prefix) + "offset: " + std::to_string(si.offset) +
             (si.kind == storage_kind::external ? " (in the external file)\n" : " (in the model file)\n");
    o += std::string(prefix) + "bytes: " + std::to_string(si.byte_size) + "\n";
    if (si.kind == storage_kind::raw || si.kind == storage_kind::external)
        o += std::string(prefix) + "alignment: " + std::to_string(si.alignment) + "\n";
}

void json_storage(json_writer& w, const tensor_view& t, const storage_info& si) {
    w.key("storage");
    w.begin_object();
    w.field("kind", storage_kind_name(si.kind));
    w.field("offset", si.offset);
    w.field("offset_in", si.kind == storage_kind::external ? "external_file" : "model_file");
    w.field("bytes", si.byte_size);
    if (si.kind == storage_kind::raw || si.kind == storage_kind::external) w.field("alignment", std::uint64_t{si.alignment});
    if (si.kind == storage_kind::typed) {
        w.field("field", typed_field_name(si.field));
        w.field("entries", si.entry_count);
    }
    if (si.kind == storage_kind::external) {
        w.field("location", si.location);
        w.field("length", si.byte_size);
        w.key("external_data");
        w.begin_object();
        for (const string_entry_view& e : t.external_data()) w.field(e.key(), e.value());
        w.end_object();
    }
    w.end_object();
}

void text_dims(std::string& o, const wire::repeated<wire::elem_int64>& dims) {
    o += "[";
    bool first = true;
    for (std::int64_t d : dims) {
        if (!first) o += ",";
        first = false;
        o += std::to_string(d);
    }
    o += "]";
}

void json_dims(json_writer& w, const char* key, const wire::repeated<wire::elem_int64>& dims) {
    w.key(key);
    w.begin_array();
    for (std::int64_t d : dims) w.value(d);
    w.end_array();
}

// --- the command ------------------------------------------------------------


void flush(const std::string& o) { std::fwrite(o.data(), 1, o.size(), stdout); }

void json_also(json_writer& w, const std::vector<match>& all) {
    w.key("also");
    w.begin_array();
    for (std::size_t i = 1; i < all.size(); ++i) w.value(all[i].where);
    w.end_array();
}

void text_also(std::string& o, const std::vector<match>& all) {
    for (std::size_t i = 1; i < all.size(); ++i) o += "also: " + all[i].where + "\n";
}

int show_dense(const context& c, const std::vector<match>& all) {
    const match& m = all.front();
    const tensor_view& t = m.t;
    const std::string_view name = m.name;
    std::string o;
    o += "name: ";
    text_quote(o, name);
    o += "\nwhere: " + m.where + " (byte " + std::to_string(offset_of(t)) + ")\n";
    text_also(o, all);
    o += std::string("data_type: ") + data_type_name(t.data_type()) + " (" + std::to_string(t.data_type()) + ")\n";
    o += "shape: ";
    text_dims(o, t.dims());
    o += "\n";

    auto storage = describe_storage(t);
    if (!storage) {
        if (!c.json) flush(o);
        print_error("tensor", "tensor '" + std::string(c.name) + "' is invalid: " +
                                  c.describe_error(storage.err()));
        return exit_findings;
    }
    const storage_info& si = *storage;
    o += "elements: " + std::to_string(si.element_count) + "\n";
    text_storage(o, si, "");

    auto data = c.model->tensor(t);
    if (!data) {
        if (!c.json) flush(o);
        print_error("tensor", "cannot read the values of '" + std::string(c.name) + "': " + c.why(data.err(), {t}));
        return exit_findings;
    }
    const tensor_data& d = *data;
    const std::uint64_t show = std::min<std::uint64_t>(c.count, d.size());
    const stats st = compute_stats(d);

    if (c.json) {
        json_writer w;
        w.begin_object();
        w.field("name", name);
        w.field("where", m.where);
        w.field("offset", offset_of(t));
        w.field("sparse", false);
        w.field("data_type", data_type_name(t.data_type()));
        w.field("data_type_code", t.data_type());
        json_dims(w, "dims", t.dims());
        w.field("element_count", si.element_count);
        json_storage(w, t, si);
        w.key("values");
        w.begin_array();
        for (std::uint64_t k = 0; k < show; ++k)
            if (!json_element(w, d, k)) w.null();
        w.end_array();
        w.field("values_total", d.size());
        json_stats(w, st, is_double_type(d.info()));
        json_also(w, all);
        w.end_object();
        flush(w.str());
        return exit_ok;
    }
    if (show > 0) {
        o += "values (first " + std::to_string(show) + " of " + std::to_string(d.size()) + "): ";
        for (std::uint64_t k = 0; k < show; ++k) {
            if (k) o += ", ";
            o += element_string(d, k);
        }
        o += "\n";
    }
    text_stats(o, st);
    flush(o);
    return exit_ok;
}

int show_sparse(const context& c, const std::vector<match>& all) {
    const match& m = all.front();
    const sparse_tensor_view& s = m.s;
    const tensor_view values = s.values();
    const std::string_view name = m.name;
    std::string o;
    o += "name: ";
    text_quote(o, name);
    o += "\nwhere: " + m.where + " (byte " + std::to_string(offset_of(s)) + ")\n";
    text_also(o, all);
    o += "sparse: COO\n";
    o += std::string("data_type: ") + data_type_name(values.data_type()) + " (" +
         std::to_string(values.data_type()) + ")\n";
    o += "shape: ";
    text_dims(o, s.dims());
    o += " (dense)\n";

    auto made = c.model->sparse_tensor(s);
    if (!made) {
        if (!c.json) flush(o);
        print_error("tensor", "sparse tensor '" + std::string(c.name) + "' is invalid: " + c.why(made.err(), {s.values(), s.indices()}));
        return exit_findings;
    }
    const sparse_data& sd = *made;
    const tensor_data& vd = sd.values();
    const tensor_data& id = sd.indices();
    const bool has_indices = s.has_indices();
    const tensor_view indices = s.indices();
    const char* layout = sd.layout() == sparse_layout::linear ? "linear" : "coordinates";
    o += "elements: " + std::to_string(sd.dense_size()) + " (dense)\n";
    o += "nnz: " + std::to_string(sd.nnz()) + "\n";
    if (has_indices) {
        o += std::string("indices: ") + layout + " ";
        text_dims(o, indices.dims());
        o += " INT64";
        if (!indices.name().empty()) {
            o += " '";
            text_quote(o, indices.name());
            o += "'";
        }
        o += "\n";
    } else {
        o += "indices: none\n";
    }
    text_storage(o, vd.describe(), "values ");
    if (has_indices) text_storage(o, id.describe(), "indices ");

    const error bad_indices = sd.validate_indices();
    const std::uint64_t show = std::min<std::uint64_t>(c.count, sd.nnz());
    const stats st = compute_stats(vd);
    std::vector<std::int64_t> coords(sd.rank());

    if (c.json) {
        if (!bad_indices.ok()) {
            print_error("tensor", "sparse tensor '" + std::string(c.name) + "' has invalid indices: " +
                                      c.describe_error(bad_indices));
            return exit_findings;
        }
        json_writer w;
        w.begin_object();
        w.field("name", name);
        w.field("where", m.where);
        w.field("offset", offset_of(s));
        w.field("sparse", true);
        w.field("data_type", data_type_name(values.data_type()));
        w.field("data_type_code", values.data_type());
        json_dims(w, "dims", s.dims());
        w.field("element_count", sd.dense_size());
        w.field("nnz", sd.nnz());
        json_storage(w, values, vd.describe());
        w.key("indices");
        if (has_indices) {
            w.begin_object();
            w.field("name", indices.name());
            w.field("layout", layout);
            json_dims(w, "dims", indices.dims());
            json_storage(w, indices, id.describe());
            w.end_object();
        } else {
            w.null();
        }
        w.key("values");
        w.begin_array();
        for (std::uint64_t k = 0; k < show; ++k) {
            w.begin_object();
            w.key("index");
            w.begin_array();
            if (sd.coordinates(k, coords.data(), coords.size()).ok())
                for (std::int64_t x : coords) w.value(x);
            w.end_array();
            auto lin = sd.linear_index(k);
            w.field("linear", lin ? *lin : 0);
            w.key("value");
            if (!json_element(w, vd, k)) w.null();
            w.end_object();
        }
        w.end_array();
        w.field("values_total", sd.nnz());
        json_stats(w, st, is_double_type(vd.info()));
        json_also(w, all);
        w.end_object();
        flush(w.str());
        return exit_ok;
    }
    if (show > 0) {
        o += "values (first " + std::to_string(show) + " of " + std::to_string(sd.nnz()) + " stored, at dense coordinates): ";
        for (std::uint64_t k = 0; k < show; ++k) {
            if (k) o += ", ";
            if (sd.coordinates(k, coords.data(), coords.size()).ok()) {
                o += "[";
                for (std::size_t j = 0; j < coords.size(); ++j) o += (j ? "," : "") + std::to_string(coords[j]);
                o += "]";
            } else {
                o += "[?]";
            }
            o += " " + element_string(vd, k);
        }
        o += "\n";
    }
    text_stats(o, st);
    flush(o);
    if (!bad_indices.ok()) {
        print_error("tensor", "sparse tensor '" + std::string(c.name) + "' has invalid indices: " +
                                  c.describe_error(bad_indices));
        return exit_findings;
    }
    return exit_ok;
}

int run(context& c) {
    int code = exit_ok;
    options opts;
    opts.verify = true;
    opts.reads = model_reads::metadata;  // to find the tensor; its own bytes are read ahead
    model_file mf;
    if (!open_model("tensor", c.path, opts, mf, code)) return code;
    c.model = &mf;
    const model_view& m = mf.model();
    std::string_view other_constant;
    const std::vector<match> found = find_tensors(m, c.name, other_constant);
    if (found.empty()) {
        std::string msg = "no initializer, sparse initializer or Constant named '" + std::string(c.name) + "' in '" +
                          shown_path(c.path) + "'";
        if (!other_constant.empty())
            msg += " (a Constant named so holds '" + std::string(other_constant) +
                   "', which is not a tensor; see onnxview dump)";
        if (!m.has_graph()) msg += diagnosis_suffix(mf.bytes(), c.path);
        print_error("tensor", msg);
        return exit_findings;
    }
    return found.front().sparse ? show_sparse(c, found) : show_dense(c, found);
}

}  // namespace

const subcommand tensor_subcommand = make_subcommand<context, make_command_line, run>();

}  // namespace onnxview_cli
