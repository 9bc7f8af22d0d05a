// One count of a model's tensors: for_each_tensor() (which `onnxview info`
// and `doctor` count from) visits exactly the TensorProtos the writer
// visits (pack_stats::tensors), on testdata/ and on every model of Debian's
// libonnx-testdata corpus (ONNXVIEW_CORPUS overrides its root; without a
// corpus only testdata/ is compared, and a warning says so).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "onnxview/model.hpp"
#include "onnxview/traverse.hpp"
#include "onnxview/verify.hpp"
#include "onnxview/write.hpp"

using namespace onnxview;
namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

error discard(void*, const char*, std::size_t) noexcept { return error(); }

// Models under `root` (recursively), sorted.
std::vector<fs::path> models_under(const fs::path& root) {
    std::vector<fs::path> out;
    std::error_code ec;
    if (!fs::is_directory(root, ec)) return out;
    for (fs::recursive_directory_iterator it(root, ec), end; it != end && !ec; it.increment(ec))
        if (it->is_regular_file(ec) && it->path().extension() == ".onnx") out.push_back(it->path());
    std::sort(out.begin(), out.end());
    return out;
}

// The tensors the traversal and the writer count in one model; false when
// the model is not one both read (not verified: nothing to compare).
bool counts(const std::string& bytes, std::uint64_t& walked, std::uint64_t& written) {
    if (!verify(bytes.data(), bytes.size()).ok()) return false;
    const model_view m = parse_model(bytes.data(), bytes.size());
    walked = 0;
    if (!for_each_tensor(m, [&](const stored_tensor&) { ++walked; }).ok()) return false;
    pack_options po;  // tensors left as they are, external ones as references
    po.inline_align = 1;
    po.keep_typed = true;
    pack_stats stats;
    const write_sink sink{nullptr, discard};
    if (!pack_model(bytes, nullptr, po, sink, nullptr, &stats).ok()) return false;
    written = stats.tensors;
    return true;
}

std::size_t compare_all(const std::vector<fs::path>& models) {
    std::size_t compared = 0;
    for (const fs::path& p : models) {
        std::uint64_t walked = 0, written = 0;
        if (!counts(read_file(p), walked, written)) continue;
        INFO(p.string());
        CHECK(walked == written);
        ++compared;
    }
    return compared;
}

}  // namespace

TEST_CASE("for_each_tensor counts the tensors the writer visits: testdata/") {
    const std::vector<fs::path> models = models_under(fs::path(ONNXVIEW_SOURCE_DIR) / "testdata");
    REQUIRE(models.size() >= 5);
    CHECK(compare_all(models) == models.size());
}

TEST_CASE("for_each_tensor counts the tensors the writer visits: the libonnx-testdata corpus") {
    const char* env = std::getenv("ONNXVIEW_CORPUS");
    const fs::path root = env != nullptr ? fs::path(env) : fs::path("/usr/share/libonnx-testdata");
    const std::vector<fs::path> models = models_under(root);
    if (models.empty()) {
        WARN("no ONNX test corpus at " << root.string() << " (Debian package libonnx-testdata): not compared");
        return;
    }
    const std::size_t compared = compare_all(models);
    // Every corpus model verifies and packs; a reader that refused them would compare nothing.
    CHECK(compared == models.size());
}
