// tools/tensor_cmd.cpp - `onnxview tensor`: one tensor's type, shape, storage and values.
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "onnxview/external_data.hpp"
#include "onnxview/model.hpp"
#include "onnxview/tensor_data.hpp"
#include "onnxview/verify.hpp"
#include "output.hpp"

namespace onnxview_cli {
namespace {

using namespace onnxview;

const char tensor_help[] =
    "usage: onnxview tensor MODEL NAME [-n N]\n"
    "\n"
    "Describes one tensor of a model: an initializer (also a sparse initializer's\n"
    "values, or an initializer of a subgraph), or the `value` of a Constant node\n"
    "whose output is NAME. Prints where it is, its data type, shape and element\n"
    "count, its storage (raw_data, a typed field, or external: file, offset,\n"
    "alignment), its first N values and, for numeric types, min/max/mean over\n"
    "all elements (complex: over real and imaginary parts; NaNs are counted\n"
    "apart).\n"
    "\n"
    "options:\n"
    "  -n N        print the first N values (default 10; 0: none)\n"
    "  -h, --help  this text\n"
    "\n"
    "exit status: 0 ok, 1 no such tensor or the tensor/model is invalid,\n"
    "             2 usage or I/O error\n";

struct found {
    tensor_view t;
    std::string where;
    bool ok = false;
};

void find_in_graph(const graph_view& g, std::string_view name, const std::string& path, found& f,
                   int depth) {
    if (f.ok || depth > 64) return;
    std::size_t i = 0;
    for (const tensor_view& t : g.initializer()) {
        if (t.name() == name) {
            f = {t, path + ".initializer[" + std::to_string(i) + "]", true};
            return;
        }
        ++i;
    }
    i = 0;
    for (const sparse_tensor_view& s : g.sparse_initializer()) {
        if (s.values().name() == name) {
            f = {s.values(), path + ".sparse_initializer[" + std::to_string(i) + "].values", true};
            return;
        }
        ++i;
    }
    i = 0;
    for (const node_view& n : g.node()) {
        std::size_t k = 0;
        for (const attribute_view& a : n.attribute()) {
            const std::string ap = path + ".node[" + std::to_string(i) + "].attribute[" + std::to_string(k) + "]";
            if (n.op_type() == "Constant" && a.has_t() && n.output().at(0) == name) {
                f = {a.t(), ap + ".t", true};
                return;
            }
            if (a.has_g()) find_in_graph(a.g(), name, ap + ".g", f, depth + 1);
            std::size_t j = 0;
            for (const graph_view& sg : a.graphs())
                find_in_graph(sg, name, ap + ".graphs[" + std::to_string(j++) + "]", f, depth + 1);
            if (f.ok) return;
            ++k;
        }
        ++i;
    }
}

struct external_fetch {
    external_data_resolver* r = nullptr;
    std::string problem;
};

result<std::string_view> fetch(void* user, const tensor_view& t, std::uint64_t expected) {
    external_fetch& ef = *static_cast<external_fetch*>(user);
    std::vector<external_entry> entries;
    for (const string_entry_view& e : t.external_data()) entries.push_back({e.key(), e.value()});
    auto span = ef.r->resolve(entries.data(), entries.size(), expected, t.name());
    if (!span) {
        ef.problem = ef.r->last_error().message;
        return span.err();
    }
    return span->bytes();
}

std::string fmt_double(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
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

}  // namespace

int run_tensor(int argc, char** argv) {
    const char* path = nullptr;
    const char* name = nullptr;
    std::uint64_t count = 10;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (is_help(a)) {
            std::fputs(tensor_help, stdout);
            return exit_ok;
        }
        if (a == "-n") {
            if (i + 1 >= argc || !parse_u64(argv[i + 1], count)) {
                print_error("tensor", "-n needs a number");
                return exit_usage;
            }
            ++i;
        } else if (!a.empty() && a[0] == '-' && path != nullptr && name == nullptr && a.size() > 1 &&
                   a[1] != '-' && a != "-h") {
            name = argv[i];  // a tensor name may start with '-' after the model
        } else if (!a.empty() && a[0] == '-') {
            print_error("tensor", "unknown option '" + std::string(a) + "' (try onnxview tensor --help)");
            return exit_usage;
        } else if (path == nullptr) {
            path = argv[i];
        } else if (name == nullptr) {
            name = argv[i];
        } else {
            print_error("tensor", "too many arguments (try onnxview tensor --help)");
            return exit_usage;
        }
    }
    if (path == nullptr || name == nullptr) {
        print_error("tensor", "MODEL and NAME are required (try onnxview tensor --help)");
        return exit_usage;
    }
    mapped_file file;
    int code = 0;
    if (!open_model_file("tensor", path, file, &code)) return code;
    if (const error e = verify(file.data(), file.size())) {
        print_error("tensor", "'" + std::string(path) + "' is not a valid ONNX model: " +
                                  describe(e, file.data(), file.size()));
        return exit_findings;
    }
    const model_view m = parse_model(file.data(), file.size());
    found f;
    find_in_graph(m.graph(), name, "graph", f, 0);
    if (!f.ok) {
        print_error("tensor", "no initializer or Constant named '" + std::string(name) + "' in '" + path + "'");
        return exit_findings;
    }
    const tensor_view& t = f.t;
    std::string o;
    o += "name: ";
    text_quote(o, t.name().empty() ? std::string_view(name) : t.name());
    o += "\nwhere: " + f.where + " (byte " +
         std::to_string(t.wire_message().offset_of(t.wire_message().begin())) + ")\n";
    o += std::string("data_type: ") + data_type_name(t.data_type()) + " (" + std::to_string(t.data_type()) + ")\n";
    o += "shape: [";
    bool first = true;
    for (std::int64_t d : t.dims()) {
        if (!first) o += ",";
        first = false;
        o += std::to_string(d);
    }
    o += "]\n";

    external_data_options eo{};
    eo.model_path = path;
    auto resolver = external_data_resolver::create(eo);
    external_fetch ef;
    if (resolver) ef.r = &resolver.value();
    external_payload_source src;
    src.user = &ef;
    src.fetch = fetch;

    auto storage = describe_storage(t);
    if (!storage) {
        std::fwrite(o.data(), 1, o.size(), stdout);
        print_error("tensor", "tensor '" + std::string(name) + "' is invalid: " +
                                  describe(storage.err(), file.data(), file.size()));
        return exit_findings;
    }
    const storage_info& si = *storage;
    o += "elements: " + std::to_string(si.element_count) + "\n";
    o += std::string("storage: ") + storage_kind_name(si.kind);
    if (si.kind == storage_kind::typed) o += std::string(" (") + typed_field_name(si.field) + ", " +
                                              std::to_string(si.entry_count) + " entries)";
    o += "\n";
    if (si.kind == storage_kind::external) {
        o += "location: ";
        text_quote(o, si.location);
        o += "\n";
    }
    if (si.kind != storage_kind::none)
        o += "offset: " + std::to_string(si.offset) +
             (si.kind == storage_kind::external ? " (in the external file)\n" : " (in the model file)\n");
    o += "bytes: " + std::to_string(si.byte_size) + "\n";
    if (si.kind == storage_kind::raw || si.kind == storage_kind::external)
        o += "alignment: " + std::to_string(si.alignment) + "\n";

    auto data = tensor_data::make(t, ef.r ? &src : nullptr);
    if (!data) {
        std::fwrite(o.data(), 1, o.size(), stdout);
        std::string why = describe(data.err(), file.data(), file.size());
        if (!ef.problem.empty()) why = ef.problem;
        print_error("tensor", "cannot read the values of '" + std::string(name) + "': " + why);
        return exit_findings;
    }
    const tensor_data& d = *data;
    const std::uint64_t show = std::min<std::uint64_t>(count, d.size());
    if (show > 0) {
        o += "values (first " + std::to_string(show) + " of " + std::to_string(d.size()) + "): ";
        for (std::uint64_t k = 0; k < show; ++k) {
            if (k) o += ", ";
            o += element_string(d, k);
        }
        o += "\n";
    }
    if (d.info().kind != element_kind::string && d.size() > 0) {
        double lo = INFINITY, hi = -INFINITY, sum = 0;
        std::uint64_t n = 0, nans = 0;
        for (double v : d.scalars<double>()) {
            if (std::isnan(v)) {
                ++nans;
                continue;
            }
            lo = std::min(lo, v);
            hi = std::max(hi, v);
            sum += v;
            ++n;
        }
        if (n > 0) o += "min: " + fmt_double(lo) + "\nmax: " + fmt_double(hi) + "\nmean: " + fmt_double(sum / double(n)) + "\n";
        if (nans) o += "nan: " + std::to_string(nans) + "\n";
    }
    std::fwrite(o.data(), 1, o.size(), stdout);
    return exit_ok;
}

}  // namespace onnxview_cli
