// model_file: a path in, views and tensor data (inline or external) out.
#include <catch2/catch.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <string>
#include <vector>

#include "onnxview/model_file.hpp"

using namespace onnxview;

namespace {
std::string testdata(const char* name) { return std::string(ONNXVIEW_SOURCE_DIR) + "/testdata/" + name; }

std::vector<double> values(model_file& mf, const tensor_view& t) {
    std::vector<double> out;
    auto d = mf.tensor(t);
    REQUIRE(d.ok());
    for (double x : d->scalars<double>()) out.push_back(x);
    return out;
}
}  // namespace

TEST_CASE("model_file reads external weights exactly as their inline twin") {
    auto ext = model_file::open(testdata("small_cnn.onnx").c_str());
    auto inl = model_file::open(testdata("small_cnn_inline.onnx").c_str());
    REQUIRE(ext.ok());
    REQUIRE(inl.ok());
    const auto a = ext->model().graph().initializer();
    const auto b = inl->model().graph().initializer();
    REQUIRE(a.size() == b.size());
    REQUIRE(a.size() > 0);
    std::size_t external = 0, compared = 0;
    auto ib = b.begin();
    for (const tensor_view& t : a) {
        const tensor_view& u = *ib;
        CHECK(t.name() == u.name());
        if (t.data_location() == location_kind::external) ++external;
        const auto x = values(ext.value(), t);
        const auto y = values(inl.value(), u);
        CHECK(x == y);
        compared += x.size();
        ++ib;
    }
    CHECK(external == 2);
    CHECK(compared > 1000);
    CHECK(ext->resolver().file_count() == 1);  // both external tensors share one file
}

TEST_CASE("model_file reports what went wrong") {
    const error missing = model_file::open("/nonexistent/model.onnx").err();
    CHECK(errc_group(missing.code) == errc::io_error);
    CHECK(missing.code == errc::io_stat_failed);
    CHECK(missing.sys_errno == ENOENT);
    CHECK(model_file::open(ONNXVIEW_SOURCE_DIR).err().code == errc::is_directory);
    char empty[] = "/tmp/onnxview-empty-XXXXXX";
    const int fd = mkstemp(empty);
    REQUIRE(fd >= 0);
    close(fd);
    CHECK(model_file::open(empty).err().code == errc::file_empty);
    std::remove(empty);
}
