// fuzz/fuzz_diff_pair.cpp - two models from one input, digested and diffed
// as `onnxview hash` and `onnxview diff` do (diff_models(), src/compare/).
//
// The input is split in two at the point its first two bytes name (little
// endian, modulo what remains); each half is opened as a model from memory.
// Contracts: nothing crashes, whatever the halves; a model's digest is the
// same twice; a model diffed with itself, by name and with --match=auto,
// gives no graph change and renames nothing (its graph section run
// directly: diff_models skips it on equal digests, which this holds to);
// diff_models of the two halves both ways never fails on models that
// digested, gives their digests, counts what it lists and differs exactly
// when the digests do (but for renames); and two halves with the same
// digest give no graph change.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "diff_internal.hpp"  // src/compare/: the graph section alone
#include "fuzz_check.hpp"
#include "onnxview/compare/model_diff.hpp"
#include "onnxview/compare/model_hash.hpp"
#include "onnxview/compare/values.hpp"
#include "onnxview/file.hpp"
#include "onnxview/model_file.hpp"
#include "onnxview/tensor_data.hpp"
#include "onnxview/traverse.hpp"

namespace {

using namespace onnxview;
using diff_detail::value_names;

struct side {
    bool open = false;
    bool digested = false;
    digest128 digest;
    model_file mf;
};

// The bytes are copied: from_memory does not own them, and the halves must
// outlive every view.
void open_side(const std::string& bytes, side& s) {
    options opts{};
    opts.verify = true;
    result<model_file> r = model_file::adopt(mapped_file::from_memory(bytes.data(), bytes.size()), opts);
    if (!r) return;
    s.mf = std::move(r.value());
    s.open = true;
    const external_payload_source ext = s.mf.external();
    const result<digest128> d1 = model_digest(s.mf.model(), &ext);
    const result<digest128> d2 = model_digest(s.mf.model(), &ext);
    FUZZ_CHECK(d1.ok() == d2.ok());
    if (d1) FUZZ_CHECK(*d1 == *d2);
    s.digested = d1.ok();
    if (d1) s.digest = *d1;
}

// The first dense tensor of each model, compared as diff's weights section
// does when their element counts agree.
void compare_first_tensors(side& a, side& b) {
    const auto first = [](side& s, tensor_view& out) {
        bool found = false;
        (void)for_each_tensor(s.mf.model(), [&](const stored_tensor& st) {
            if (!found && !st.sparse_part) out = st.tensor, found = true;
        });
        return found;
    };
    tensor_view ta, tb;
    if (!first(a, ta) || !first(b, tb)) return;
    const result<tensor_data> da = a.mf.tensor(ta);
    const result<tensor_data> db = b.mf.tensor(tb);
    if (!da || !db || da->scalar_count() != db->scalar_count()) return;
    const result<value_difference> d = compare_values(*da, *db, value_tolerance{1e-5, 1e-8});
    if (d) FUZZ_CHECK(d->beyond_tolerance <= d->differing && d->differing <= d->count);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 2) return 0;
    const std::size_t rest = size - 2;
    const std::size_t split = (static_cast<std::size_t>(data[0]) | static_cast<std::size_t>(data[1]) << 8) % (rest + 1);
    const std::string bytes_a(reinterpret_cast<const char*>(data) + 2, split);
    const std::string bytes_b(reinterpret_cast<const char*>(data) + 2 + split, rest - split);
    side a, b;
    open_side(bytes_a, a);
    open_side(bytes_b, b);
    const digest_options digest;
    for (side* s : {&a, &b}) {
        if (!s->digested) continue;
        for (const node_matching mode : {node_matching::name, node_matching::automatic}) {
            diff_detail::change_list changes;
            value_names names;
            const error e = diff_detail::diff_graphs(s->mf, s->mf, digest, mode, names, changes);
            FUZZ_CHECK(!e);
            FUZZ_CHECK(changes.empty());
            FUZZ_CHECK(names.values_renamed == 0 && names.nodes_renamed == 0);
        }
    }
    if (a.digested && b.digested) {
        for (const node_matching mode : {node_matching::name, node_matching::automatic}) {
            diff_options options;
            options.matching = mode;
            model_diff ab, ba;
            FUZZ_CHECK(!diff_models(a.mf, b.mf, options, ab));
            FUZZ_CHECK(!diff_models(b.mf, a.mf, options, ba));
            FUZZ_CHECK(ab.digest_a == a.digest && ab.digest_b == b.digest);
            std::size_t counted = 0;
            for (const model_change& c : ab.changes) counted += c.counted ? 1 : 0;
            FUZZ_CHECK(counted == ab.counts.signature + ab.counts.graph + ab.counts.weights);
            if (a.digest == b.digest) {
                FUZZ_CHECK(ab.same_computation() && ba.same_computation());
                FUZZ_CHECK(ab.matching.renamed == 0 && ab.matching.values_renamed == 0);
                for (const model_change& c : ab.changes) FUZZ_CHECK(c.section != diff_section::graph);
            } else {
                FUZZ_CHECK(ab.verdict != diff_verdict::identical && ab.verdict != diff_verdict::same_layout_differs);
            }
        }
    }
    if (a.open && b.open) compare_first_tensors(a, b);
    return 0;
}
