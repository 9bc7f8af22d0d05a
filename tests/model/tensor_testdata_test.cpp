// tensor_data over the models of testdata/: every tensor of
// tensors_all_types.onnx equals python3-onnx's numpy_helper.to_array (skipped
// without /usr/bin/python3 and onnx), sparse.onnx as make_testdata.py wrote
// it, and small_cnn.onnx's external tensors equal its inline twin's.
#include <catch2/catch.hpp>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "onnxview/external_data.hpp"
#include "onnxview/external_source.hpp"
#include "onnxview/model.hpp"
#include "onnxview/sparse_data.hpp"
#include "onnxview/tensor_data.hpp"

using namespace onnxview;
namespace {

bool same_double(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

std::string find_testdata(const char* name) {
    std::string here = __FILE__;
    const std::string tail = "tests/model/tensor_testdata_test.cpp";
    std::vector<std::string> candidates;
    if (here.size() >= tail.size() && here.compare(here.size() - tail.size(), tail.size(), tail) == 0)
        candidates.push_back(here.substr(0, here.size() - tail.size()) + "testdata/" + name);
    for (const char* up : {"", "../", "../../", "../../../"}) candidates.push_back(std::string(up) + "testdata/" + name);
    for (const std::string& c : candidates) {
        std::ifstream f(c, std::ios::binary);
        if (f) return c;
    }
    return {};
}

std::string read_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

// name -> scalars (float64, complex as real/imag) or hex strings, from python3-onnx.
bool python_reference(const std::string& model, std::map<std::string, std::vector<std::string>>& out) {
    static const char* script =
        "import sys\n"
        "import numpy as np\n"
        "import onnx\n"
        "from onnx import numpy_helper\n"
        "m = onnx.load(sys.argv[1])\n"
        "for t in m.graph.initializer:\n"
        "    try:\n"
        "        a = numpy_helper.to_array(t).reshape(-1)\n"
        "    except TypeError:\n"
        "        # onnx 1.12 cannot convert typed complex tensors: take the fields as decoded by protobuf\n"
        "        pairs = list(t.float_data) if t.data_type == onnx.TensorProto.COMPLEX64 else list(t.double_data)\n"
        "        print(t.name, len(pairs), *[float(x).hex() for x in pairs])\n"
        "        continue\n"
        "    if t.data_type == onnx.TensorProto.BFLOAT16 and a.dtype == np.uint16:\n"
        "        a = (a.astype(np.uint32) << 16).view(np.float32)\n"
        "    if t.data_type == onnx.TensorProto.STRING:\n"
        "        vals = ['x' + bytes(x).hex() for x in t.string_data]\n"
        "    elif np.iscomplexobj(a):\n"
        "        vals = [float(y).hex() for x in a for y in (x.real, x.imag)]\n"
        "    else:\n"
        "        vals = [float(x).hex() for x in a.astype(np.float64)]\n"
        "    print(t.name, len(vals), *vals)\n";
    char path[] = "/tmp/onnxview_ref_XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) return false;
    FILE* f = fdopen(fd, "w");
    std::fputs(script, f);
    std::fclose(f);
    const std::string cmd = "/usr/bin/python3 " + std::string(path) + " '" + model + "' 2>/dev/null";
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) {
        std::remove(path);
        return false;
    }
    std::string text;
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) text.append(buf, n);
    const int rc = pclose(p);
    std::remove(path);
    if (rc != 0) return false;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream ls(line);
        std::string name;
        std::size_t count = 0;
        ls >> name >> count;
        std::vector<std::string> vals(count);
        for (auto& v : vals) ls >> v;
        out[name] = vals;
    }
    return !out.empty();
}

std::string hex_of(std::string_view s) {
    static const char* digits = "0123456789abcdef";
    std::string h;
    for (unsigned char c : s) {
        h.push_back(digits[c >> 4]);
        h.push_back(digits[c & 15]);
    }
    return h;
}

}  // namespace

TEST_CASE("testdata/tensors_all_types.onnx matches numpy_helper.to_array") {
    const std::string path = find_testdata("tensors_all_types.onnx");
    if (path.empty()) {
        WARN("testdata/tensors_all_types.onnx not found; skipped");
        return;
    }
    std::map<std::string, std::vector<std::string>> ref;
    if (!python_reference(path, ref)) {
        WARN("/usr/bin/python3 with onnx not available; skipped");
        return;
    }
    const std::string bytes = read_file(path);
    auto m = parse_model(bytes.data(), bytes.size());
    REQUIRE(m.ok());
    std::size_t compared = 0;
    bool saw_raw = false, saw_typed = false;
    for (const tensor_view& t : m.graph().initializer()) {
        const std::string name(t.name());
        INFO(name);
        REQUIRE(ref.count(name) == 1);
        const auto& want = ref[name];
        auto d = tensor_data::make(t);
        REQUIRE(d.ok());
        saw_raw |= d->storage() == storage_kind::raw;
        saw_typed |= d->storage() == storage_kind::typed;
        if (d->type() == static_cast<std::int32_t>(data_type::string)) {
            std::vector<std::string> got;
            for (std::string_view s : d->elements<std::string_view>()) got.push_back("x" + hex_of(s));  // 'x': empty strings stay tokens
            CHECK(got == want);
        } else {
            std::vector<double> got;
            for (double x : d->scalars<double>()) got.push_back(x);
            REQUIRE(got.size() == want.size());
            for (std::size_t i = 0; i < got.size(); ++i) {
                const double w = std::strtod(want[i].c_str(), nullptr);
                INFO(i << ": " << got[i] << " vs " << want[i]);
                CHECK(same_double(got[i], w));
                if (!std::isnan(w)) CHECK(std::signbit(got[i]) == std::signbit(w));
            }
        }
        ++compared;
    }
    CHECK(compared == ref.size());
    CHECK(compared >= 30);
    CHECK(saw_raw);
    CHECK(saw_typed);
}

TEST_CASE("testdata/sparse.onnx: values and indices as make_testdata.py wrote them") {
    const std::string path = find_testdata("sparse.onnx");
    if (path.empty()) {
        WARN("testdata/sparse.onnx not found; skipped");
        return;
    }
    const std::string bytes = read_file(path);
    auto m = parse_model(bytes.data(), bytes.size());
    REQUIRE(m.ok());
    int seen = 0;
    for (const sparse_tensor_view& sv : m.graph().sparse_initializer()) {
        auto s = sparse_data::make(sv);
        REQUIRE(s.ok());
        CHECK(s->validate_indices().ok());
        const std::string name(sv.values().name());
        if (name == "sparse_2d") {
            ++seen;
            CHECK(s->layout() == sparse_layout::coordinates);
            CHECK(s->dense_size() == 20);
            CHECK(s->linear_index(2).value() == 19);  // (3, 4) in [4, 5]
            CHECK(s->values().at<float>(1).value() == -2.0f);
        } else if (name == "sparse_linear") {
            ++seen;
            CHECK(s->layout() == sparse_layout::linear);
            std::int64_t c[2];
            REQUIRE(s->coordinates(2, c, 2).ok());  // 6 in [3, 4] -> (1, 2)
            CHECK((c[0] == 1 && c[1] == 2));
            CHECK(s->values().at<std::int64_t>(1).value() == -20);
        }
    }
    CHECK(seen == 2);
    // The sparse Constant's attribute reaches the same API.
    for (const node_view& n : m.graph().node()) {
        for (const attribute_view& a : n.attribute()) {
            if (a.name() != "sparse_value") continue;
            auto s = sparse_data::make(a.sparse_tensor());
            REQUIRE(s.ok());
            CHECK(s->linear_index(1).value() == 6);
            CHECK(s->values().at<float>(1).value() == 8.0f);
            ++seen;
        }
    }
    CHECK(seen == 3);
}

TEST_CASE("testdata/small_cnn.onnx: external tensors through the resolver equal the inline model's") {
    const std::string ext_path = find_testdata("small_cnn.onnx");
    const std::string inline_path = find_testdata("small_cnn_inline.onnx");
    if (ext_path.empty() || inline_path.empty()) {
        WARN("testdata/small_cnn*.onnx not found; skipped");
        return;
    }
    options opts{};
    opts.model_path = ext_path.c_str();
    auto resolver = external_data_resolver::create(opts);
    REQUIRE(resolver.ok());
    external_data_resolver r = std::move(resolver).value();
    const external_payload_source src = external_source(r);

    const std::string ext_bytes = read_file(ext_path);
    const std::string inl_bytes = read_file(inline_path);
    auto em = parse_model(ext_bytes.data(), ext_bytes.size());
    auto im = parse_model(inl_bytes.data(), inl_bytes.size());
    REQUIRE(em.ok());
    REQUIRE(im.ok());
    int external = 0;
    for (const tensor_view& t : em.graph().initializer()) {
        INFO(std::string(t.name()));
        auto d = tensor_data::make(t, src);
        REQUIRE(d.ok());
        if (d->storage() != storage_kind::external) continue;
        ++external;
        CHECK(tensor_data::make(t).err().code == errc::invalid_argument);
        for (const tensor_view& u : im.graph().initializer()) {
            if (u.name() != t.name()) continue;
            auto e = tensor_data::make(u);
            REQUIRE(e.ok());
            CHECK(e->storage() == storage_kind::raw);
            CHECK(d->bytes() == e->bytes());
            std::vector<float> a(d->size()), b(e->size());
            REQUIRE(d->copy_to(a.data(), a.size()).ok());
            REQUIRE(e->copy_to(b.data(), b.size()).ok());
            CHECK(a == b);
        }
    }
    CHECK(external == 2);  // conv2.weight and fc.weight
    CHECK(r.file_count() == 1);
}
