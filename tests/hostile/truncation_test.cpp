// Every prefix of a real model (testdata/small_cnn_inline.onnx, weights
// inline): walking it never crashes, and it is refused - by verify() when the
// cut falls inside a field. A cut between two top-level fields leaves a
// well-formed, shorter ModelProto, which no reader can tell apart from a
// real one: check_model() refuses it while the graph or opset_import is
// missing; past them (only metadata_props and functions follow in this file)
// it is a smaller valid model, and only the view contract is checked.
#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "cursor_walk.hpp"
#include "model_walk.hpp"
#include "onnxview/check.hpp"
#include "onnxview/model.hpp"
#include "onnxview/verify.hpp"

using namespace onnxview;

namespace {

std::string read_testdata(const char* name) {
    std::ifstream in(std::string(ONNXVIEW_SOURCE_ROOT) + "/testdata/" + name, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

TEST_CASE("every prefix of a real model is refused, and walking it never crashes", "[hostile][truncation]") {
    const std::string full = read_testdata("small_cnn_inline.onnx");
    REQUIRE(full.size() > 10000);
    REQUIRE(verify(full.data(), full.size()).ok());

    std::set<std::size_t> boundaries;  // ends of top-level fields
    std::size_t required_end = 0;      // end of the last graph or opset_import field
    {
        auto c = wire::message::root(full.data(), full.size()).fields();
        wire::field f;
        while (c.next(f)) {
            boundaries.insert(static_cast<std::size_t>(c.offset()));
            if (f.number == 7 || f.number == 8) required_end = static_cast<std::size_t>(c.offset());
        }
        REQUIRE(c.err().ok());
    }
    REQUIRE(required_end < full.size());

    std::size_t refused_by_verify = 0, refused_by_check = 0, smaller_models = 0;
    for (std::size_t n = 0; n < full.size(); ++n) {
        // A copy of exactly n bytes, so that ASan sees any read past the cut.
        const std::string prefix = full.substr(0, n);
        fuzzing::model_walker w;
        w.model(parse_model(prefix.data(), prefix.size()));
        const error v = verify(prefix.data(), prefix.size());
        fuzzing::cursor_walk_stats cs;  // a cursor walk reaches the same verdict
        CHECK(fuzzing::walk_fields(model_cursor(prefix.data(), prefix.size()), cs).ok() == v.ok());
        if (!v.ok()) {
            ++refused_by_verify;
            CHECK(v.offset <= n);
            if (v.code != errc::truncated && v.code != errc::length_out_of_bounds) {
                FAIL_CHECK("prefix " << n << ": " << errc_name(v.code));
            }
            continue;
        }
        // Well-formed: only at the top-level field boundaries (and n = 0).
        if (n != 0 && boundaries.count(n) == 0) FAIL_CHECK("prefix " << n << " passes verify()");
        CHECK(w.stats.first_error.ok());  // the contract: verify() ok => views ok
        if (n >= required_end) {  // a smaller valid model
            ++smaller_models;
            continue;
        }
        options opts;
        opts.errors_only = true;
        const check_result r = check_model(prefix.data(), prefix.size(), opts, nullptr, nullptr);
        if (r.ok()) FAIL_CHECK("prefix " << n << " passes check_model()");
        ++refused_by_check;
    }
    CHECK(refused_by_verify + refused_by_check + smaller_models == full.size());
    CHECK(smaller_models == 4);  // cut after opset_import, and after each metadata_props entry
    CHECK(refused_by_check <= boundaries.size() + 1);
}
