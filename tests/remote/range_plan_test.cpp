// The range plan of a remote file (src/remote/range_plan.hpp): which byte
// ranges to ask for, given the needs of a reader one at a time. Pure
// arithmetic: no server. The needs are given as src/remote/remote_file.cpp's
// fetch_remote gives them: plan() for every need, held or not, and mark()
// for every range it returns (as if each arrived whole).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "range_plan.hpp"

using onnxview::detail::byte_range;
using onnxview::detail::range_plan;
using onnxview::detail::range_plan_limits;

namespace {

constexpr std::uint64_t KiB = 1024, MiB = 1024 * KiB;

// A reader in front of a plan: every need planned, every range marked, and
// the invariants of plan()'s answer checked on each.
struct reader {
    range_plan plan;
    std::vector<std::vector<byte_range>> plans;  // the non-empty ones, in order
    std::uint64_t needs = 0;
    std::uint64_t planned_bytes = 0;

    explicit reader(std::uint64_t size, const range_plan_limits& limits = {}) : plan(size, limits) {}

    // Plans [offset, offset + length), checks the answer, marks it; returns it.
    std::vector<byte_range> need(std::uint64_t offset, std::uint64_t length) {
        ++needs;
        const bool held = plan.has(offset, length);
        std::vector<byte_range> r = plan.plan(offset, length);
        INFO("need [" << offset << ", +" << length << ") #" << needs);
        if (held) CHECK(r.empty());
        const std::uint64_t page = plan.limits().page;
        std::uint64_t last_end = 0;
        for (std::size_t i = 0; i < r.size(); ++i) {
            const byte_range& x = r[i];
            INFO("range " << i << ": [" << x.begin << ", " << x.end << ")");
            CHECK(x.begin < x.end);
            CHECK(x.end <= plan.size());
            CHECK(x.begin % page == 0);
            CHECK((x.end % page == 0 || x.end == plan.size()));
            if (i > 0) CHECK(x.begin > last_end);  // ascending, disjoint, not touching (touching ones are one)
            last_end = x.end;
            // No held page is asked again.
            for (std::uint64_t at = x.begin; at < x.end; at += page)
                CHECK_FALSE(plan.has(at, 1));
        }
        for (const byte_range& x : r) {
            plan.mark(x.begin, x.end);
            planned_bytes += x.size();
        }
        if (offset < plan.size()) CHECK(plan.has(offset, std::min(length, plan.size() - offset)));
        if (!r.empty()) plans.push_back(r);
        return r;
    }
};

}  // namespace

TEST_CASE("range_plan: has and mark, whole pages only", "[remote][range_plan]") {
    range_plan p(10000);  // pages [0, 4096), [4096, 8192), and the partial last [8192, 10000)
    CHECK(p.size() == 10000);
    CHECK(p.held_bytes() == 0);
    CHECK(p.has(0, 0));  // nothing needed: held
    CHECK(p.has(9999, 0));
    CHECK_FALSE(p.has(0, 1));

    p.mark(0, 5000);  // page 0 whole, page 1 partly: page 0 only
    CHECK(p.has(0, 4096));
    CHECK(p.has(4095, 1));
    CHECK_FALSE(p.has(0, 4097));
    CHECK_FALSE(p.has(4096, 1));
    CHECK(p.held_bytes() == 4096);

    p.mark(4100, 8192);  // starts inside page 1: not held
    CHECK_FALSE(p.has(4096, 1));
    CHECK_FALSE(p.has(8191, 1));
    p.mark(100, 9000);  // page 1 whole inside; page 0 again, page 2 partly
    CHECK(p.has(0, 8192));
    CHECK_FALSE(p.has(8192, 1));
    CHECK(p.held_bytes() == 8192);

    // The last page is partial: a range to the file's end holds it.
    p.mark(8192, 9999);  // one byte short
    CHECK_FALSE(p.has(9999, 1));
    p.mark(9000, 10000);  // to the end, but from inside the page
    CHECK_FALSE(p.has(8192, 1));
    p.mark(8192, 10000);
    CHECK(p.has(8192, 1808));
    CHECK(p.has(0, 10000));
    CHECK(p.held_bytes() == 3 * 4096);  // whole pages, the last one counted whole

    p.mark(5000, 5000);  // empty: nothing
    p.mark(20000, 30000);  // past the end: nothing
    CHECK(p.held_bytes() == 3 * 4096);

    range_plan q(10000);
    q.mark(0, 1 << 20);  // clipped to the file: all of it, the last page included
    CHECK(q.has(0, 10000));
    CHECK(q.held_bytes() == 3 * 4096);

    // A file of whole pages: its last page is an ordinary one.
    range_plan r(8192);
    r.mark(4096, 8192);
    CHECK(r.has(4096, 4096));
    CHECK_FALSE(r.has(0, 1));
    // Pages are the limits' page.
    range_plan_limits big;
    big.page = 65536;
    range_plan s(200000, big);
    s.mark(0, 70000);
    CHECK(s.has(0, 65536));
    CHECK_FALSE(s.has(65536, 1));
    CHECK(s.held_bytes() == 65536);
}

TEST_CASE("range_plan: a held need plans nothing; needs past the end plan nothing", "[remote][range_plan]") {
    range_plan p(1 * MiB);
    p.mark(0, 1 * MiB);
    CHECK(p.plan(100, 50).empty());
    CHECK(p.plan(0, 1 * MiB).empty());
    CHECK(p.plan(500 * KiB, 0).empty());
    range_plan q(1 * MiB);
    CHECK(q.plan(1 * MiB, 10).empty());  // at the end
    CHECK(q.plan(2 * MiB, 10).empty());
    CHECK(q.plan(100, 0).empty());       // nothing needed
    CHECK(q.held_bytes() == 0);
}

TEST_CASE("range_plan: a first need is one page-aligned range of first_window", "[remote][range_plan]") {
    const range_plan_limits l;
    {
        range_plan p(100 * MiB);
        const auto r = p.plan(1000, 100);
        REQUIRE(r.size() == 1);
        CHECK(r[0] == byte_range{0, l.first_window});
    }
    {
        range_plan p(100 * MiB);
        const auto r = p.plan(50000, 300);
        REQUIRE(r.size() == 1);
        CHECK(r[0].begin == 49152);  // the need's page
        CHECK(r[0].end == 49152 + l.first_window);
    }
    {
        // A need longer than the window: all of it, to a page's end.
        range_plan p(100 * MiB);
        const auto r = p.plan(5000, 100000);
        REQUIRE(r.size() == 1);
        CHECK(r[0] == byte_range{4096, 106496});
    }
    {
        // Near the end of the file the window stops at the end.
        range_plan p(30000);
        const auto r = p.plan(29000, 10);
        REQUIRE(r.size() == 1);
        CHECK(r[0] == byte_range{28672, 30000});
        // A need running past the end is cut to the file.
        range_plan q(30000);
        const auto s = q.plan(29000, 5000);
        REQUIRE(s.size() == 1);
        CHECK(s[0] == byte_range{28672, 30000});
    }
    {
        // Partly held: only the missing pages, starting where the held ones stop.
        range_plan p(100 * MiB);
        p.mark(0, 8192);
        const auto r = p.plan(4000, 8000);  // the window from the need's page: [0, 16 KiB)
        REQUIRE(r.size() == 1);
        CHECK(r[0] == byte_range{8192, l.first_window});
        // A held page in the middle of the window splits it.
        range_plan q(100 * MiB);
        q.mark(8192, 12288);
        const auto s = q.plan(100, 10);
        REQUIRE(s.size() == 2);
        CHECK(s[0] == byte_range{0, 8192});
        CHECK(s[1] == byte_range{12288, l.first_window});
    }
}

TEST_CASE("range_plan: a run of contiguous needs grows the window by run_growth up to max_window", "[remote][range_plan]") {
    for (const std::uint64_t growth : {std::uint64_t(16), std::uint64_t(4)}) {
        range_plan_limits l;  // 16 KiB .. 16 MiB
        l.run_growth = growth;
        reader rd(80 * MiB, l);
        // A dense metadata walk: a 15-byte head and a 200-byte body every 1000 bytes.
        for (std::uint64_t at = 0; at + 1000 <= 80 * MiB; at += 1000) {
            rd.need(at, 15);
            rd.need(at + 15, 200);
        }
        std::vector<std::uint64_t> sizes;
        for (const auto& r : rd.plans) {
            REQUIRE(r.size() == 1);  // a run: no prediction
            sizes.push_back(r[0].size());
        }
        INFO("growth " << growth << ", windows: " << ::Catch::Detail::stringify(sizes));
        // The window counts from the need's page, which may be the last one
        // held already: a range is the window or a page less.
        auto window = [&](std::uint64_t size, std::uint64_t w) { return size == w || size == w - 4096; };
        std::uint64_t expected = l.first_window, planned = 0;
        std::size_t requests = 0;
        for (std::uint64_t w = l.first_window; planned < 80 * MiB; w = std::min(w * growth, l.max_window)) {
            planned += w;
            ++requests;
        }
        CHECK(sizes[0] == l.first_window);
        for (std::size_t i = 1; i + 1 < sizes.size(); ++i) {
            expected = std::min(expected * growth, l.max_window);
            CHECK(window(sizes[i], expected));
        }
        // 16 KiB, 256 KiB, 4 MiB, then (about) 16 MiB pieces: 8 requests
        // (fourfold: 16 KiB ... 4 MiB, then 16 MiB pieces: 10).
        CHECK(rd.plans.size() == requests);
        CHECK(rd.plans.size() == (growth == 16 ? 8u : 10u));
        CHECK(rd.planned_bytes == 80 * MiB);
        // Each range starts where the last ended: one run.
        for (std::size_t i = 1; i < rd.plans.size(); ++i) CHECK(rd.plans[i][0].begin == rd.plans[i - 1][0].end);
    }
}

TEST_CASE("range_plan: a need elsewhere starts a new run at first_window", "[remote][range_plan]") {
    const range_plan_limits l;
    reader rd(200 * MiB);
    for (std::uint64_t at = 0; at < 2 * MiB; at += 1000) rd.need(at, 100);
    REQUIRE(rd.plans.size() >= 3);
    CHECK(rd.plans.back()[0].size() > l.first_window);  // the window had grown
    const auto r = rd.need(100 * MiB + 123, 20);
    REQUIRE(r.size() == 1);
    CHECK(r[0] == byte_range{100 * MiB, 100 * MiB + l.first_window});
    // ... and grows again from there.
    std::vector<std::uint64_t> sizes;
    for (std::uint64_t at = 100 * MiB + 200; at < 101 * MiB; at += 1000)
        for (const byte_range& x : rd.need(at, 100)) sizes.push_back(x.size());
    REQUIRE(sizes.size() >= 2);
    CHECK(sizes[0] == l.run_growth * l.first_window);
    CHECK(sizes[1] == std::min(l.run_growth * l.run_growth * l.first_window, l.max_window));
}

namespace {

// A model of `layers` repeated layers: layer k's first tensor header at
// starts[k]; each need is a 15-byte head, then a body of `body` bytes
// continuing it (what fetch_metadata asks of a tensor's header).
struct layers_run {
    std::vector<std::size_t> plan_sizes;  // ranges of each non-empty plan
    std::vector<std::uint64_t> plan_layer;  // the layer whose head made it
    std::uint64_t planned_bytes = 0;
    std::uint64_t size = 0;
};

layers_run walk_layers(const std::vector<std::uint64_t>& starts, std::uint64_t size, std::uint64_t body = 4000,
                       const range_plan_limits& limits = {}) {
    reader rd(size, limits);
    layers_run out;
    out.size = size;
    for (std::size_t k = 0; k < starts.size(); ++k) {
        const std::size_t before = rd.plans.size();
        rd.need(starts[k], 15);
        rd.need(starts[k] + 15, body);
        for (std::size_t i = before; i < rd.plans.size(); ++i) {
            out.plan_sizes.push_back(rd.plans[i].size());
            out.plan_layer.push_back(k);
        }
    }
    out.planned_bytes = rd.planned_bytes;
    return out;
}

std::string describe(const layers_run& r) {
    std::string s = "plans (layer: ranges):";
    for (std::size_t i = 0; i < r.plan_sizes.size(); ++i)
        s += " " + std::to_string(r.plan_layer[i]) + ":" + std::to_string(r.plan_sizes[i]);
    s += "; planned " + std::to_string(r.planned_bytes) + " of " + std::to_string(r.size) + " bytes";
    return s;
}

constexpr std::uint64_t layer_distance = 2 * MiB + 4100;

}  // namespace

TEST_CASE("range_plan: a constant distance between runs is predicted, 4, 16, 64 ranges ahead", "[remote][range_plan]") {
    const std::uint64_t layers = 1500;
    std::vector<std::uint64_t> starts;
    for (std::uint64_t k = 0; k < layers; ++k) starts.push_back(1000 + k * layer_distance);
    const std::uint64_t size = 1000 + layers * layer_distance + 64 * KiB;
    const layers_run r = walk_layers(starts, size);
    INFO(describe(r));
    REQUIRE(r.plan_sizes.size() >= 5);
    // Layers 0 and 1: a range each, no period yet. Layer 2: the distance
    // has repeated: its range and 4 predicted ones.
    CHECK(r.plan_layer[0] == 0);
    CHECK(r.plan_sizes[0] == 1);
    CHECK(r.plan_layer[1] == 1);
    CHECK(r.plan_sizes[1] == 1);
    CHECK(r.plan_layer[2] == 2);
    CHECK(r.plan_sizes[2] == 1 + 4);
    // The predictions held (layers 3..6 planned nothing): then 16, then 64.
    CHECK(r.plan_layer[3] == 7);
    CHECK(r.plan_sizes[3] == 1 + 16);
    CHECK(r.plan_layer[4] == 7 + 17);
    CHECK(r.plan_sizes[4] == 1 + 64);
    // 1500 layers in a handful of requests, and few bytes of the file.
    CHECK(r.plan_sizes.size() <= 12);
    CHECK(r.planned_bytes < size / 50);
}

TEST_CASE("range_plan: a period of 2 (alternating distances) is predicted", "[remote][range_plan]") {
    // Two kinds of layers, one after the other: distances a, b, a, b, ...
    const std::uint64_t a = 1536 * KiB + 100, b = 700 * KiB + 36;
    std::vector<std::uint64_t> starts{5000};
    for (std::uint64_t k = 1; k < 1500; ++k) starts.push_back(starts.back() + (k % 2 ? a : b));
    const std::uint64_t size = starts.back() + 1 * MiB;
    const layers_run r = walk_layers(starts, size);
    INFO(describe(r));
    REQUIRE(r.plan_sizes.size() >= 5);
    // A period of 2 shows after 5 positions (two distances, twice): layer 4
    // predicts.
    for (std::size_t i = 0; i < 4; ++i) CHECK(r.plan_sizes[i] == 1);
    CHECK(r.plan_layer[4] == 4);
    CHECK(r.plan_sizes[4] == 1 + 4);
    CHECK(r.plan_sizes.size() <= 14);
    CHECK(r.planned_bytes < size / 50);

    // And a period of 3, with different extents per phase.
    std::vector<std::uint64_t> s3{0};
    const std::uint64_t d3[3] = {300 * KiB + 8, 2 * MiB + 40, 1 * MiB + 4};
    for (std::uint64_t k = 1; k < 1500; ++k) s3.push_back(s3.back() + d3[k % 3]);
    const layers_run r3 = walk_layers(s3, s3.back() + 1 * MiB);
    INFO(describe(r3));
    CHECK(r3.plan_sizes.size() <= 16);
    CHECK(r3.planned_bytes < r3.size / 50);
}

TEST_CASE("range_plan: distances that grow by a few bytes are still covered", "[remote][range_plan]") {
    // Layer names get a digit longer (w9 -> w10): from layer 100 on each
    // distance is 2 bytes longer, and again from layer 1000 on.
    const std::uint64_t layers = 1500;
    std::vector<std::uint64_t> plain, grown;
    std::uint64_t at = 1000;
    for (std::uint64_t k = 0; k < layers; ++k) {
        plain.push_back(1000 + k * layer_distance);
        grown.push_back(at);
        at += layer_distance + (k >= 100 ? 2 : 0) + (k >= 1000 ? 2 : 0);
    }
    const layers_run base = walk_layers(plain, plain.back() + 1 * MiB);
    const layers_run r = walk_layers(grown, grown.back() + 1 * MiB);
    INFO("constant: " << describe(base));
    INFO("grown: " << describe(r));
    CHECK(r.plan_sizes.size() <= base.plan_sizes.size() + 2);
    CHECK(r.planned_bytes < r.size / 50);

    // Distances that keep growing (each 2 bytes longer than the one before,
    // from layer 500 on): the positions leave a batch's margins (which grow
    // linearly) quadratically. Each need is still held after its plan (the
    // reader checks) and few bytes are asked; but the requests are many
    // (about 300 for these 1500 layers, against 8 above: a prediction that
    // holds a layer's head but cuts its body is not taken as wrong, so the
    // body's miss costs a request of its own and predicts nothing). Only a
    // breakdown is caught here.
    std::vector<std::uint64_t> drift;
    at = 1000;
    for (std::uint64_t k = 0; k < layers; ++k) {
        drift.push_back(at);
        at += layer_distance + (k >= 500 ? 2 * (k - 499) : 0);
    }
    const layers_run d = walk_layers(drift, drift.back() + 1 * MiB);
    INFO("drifting: " << describe(d));
    CHECK(d.planned_bytes < d.size / 20);
    CHECK(d.plan_sizes.size() < layers / 3);
}

TEST_CASE("range_plan: a reader going backwards resets the history", "[remote][range_plan]") {
    const std::uint64_t size = 4096 * MiB;
    reader rd(size);
    // 20 layers from 2 GiB: predictions made.
    for (std::uint64_t k = 0; k < 20; ++k) {
        rd.need(2048 * MiB + k * layer_distance, 15);
        rd.need(2048 * MiB + k * layer_distance + 15, 4000);
    }
    REQUIRE(rd.plans.size() >= 3);
    bool predicted = false;
    for (const auto& r : rd.plans) predicted = predicted || r.size() > 1;
    REQUIRE(predicted);
    // Back to 100 MiB, with the same distance: the old positions say
    // nothing of these; only three new ones make a period again.
    const std::uint64_t base = 100 * MiB + 7;
    const std::uint64_t d = layer_distance;
    CHECK(rd.need(base, 15).size() == 1);
    rd.need(base + 15, 4000);
    CHECK(rd.need(base + d, 15).size() == 1);
    rd.need(base + d + 15, 4000);
    CHECK(rd.need(base + 2 * d, 15).size() == 1 + 4);
    rd.need(base + 2 * d + 15, 4000);
    // The streak started over too: the next batch is 16 again.
    for (std::uint64_t k = 3; k <= 6; ++k) {
        CHECK(rd.need(base + k * d, 15).empty());
        CHECK(rd.need(base + k * d + 15, 4000).empty());
    }
    CHECK(rd.need(base + 7 * d, 15).size() == 1 + 16);

    // A backwards need that is held resets the history as well (every need
    // goes through the plan): positions before it count no more.
    const std::size_t plans = rd.plans.size();
    CHECK(rd.need(base + 3 * d, 15).empty());  // held: back
    CHECK(rd.plans.size() == plans);
    CHECK(rd.need(3000 * MiB, 15).size() == 1);  // fresh, forward
    CHECK(rd.need(3000 * MiB + d, 15).size() == 1);  // two positions since the reset: no period yet
}

TEST_CASE("range_plan: wrong predictions cost bytes, never a need", "[remote][range_plan]") {
    // Ten layers at one distance, then the layout changes to another: the
    // predictions made for the first are wasted, the new needs still held
    // after their plan (the reader checks), and the new period found.
    std::vector<std::uint64_t> starts;
    std::uint64_t at = 0;
    for (std::uint64_t k = 0; k < 300; ++k) {
        starts.push_back(at);
        at += k < 10 ? layer_distance : 3 * MiB + 1000;
    }
    const layers_run r = walk_layers(starts, at + 1 * MiB);
    INFO(describe(r));
    CHECK(r.plan_sizes.size() <= 12);
    CHECK(r.planned_bytes < r.size / 25);
}

TEST_CASE("range_plan: predictions respect max_predictions and max_prediction_bytes", "[remote][range_plan]") {
    range_plan_limits l;
    l.max_predictions = 8;
    std::vector<std::uint64_t> starts;
    for (std::uint64_t k = 0; k < 200; ++k) starts.push_back(1000 + k * layer_distance);
    const layers_run r = walk_layers(starts, starts.back() + 1 * MiB, 4000, l);
    INFO(describe(r));
    for (std::size_t n : r.plan_sizes) CHECK(n <= 1 + 8);

    // The predicted ranges of one plan (all but the first, the need's own)
    // stay within max_prediction_bytes.
    range_plan_limits tight;
    tight.max_prediction_bytes = 100 * KiB;
    reader rd(starts.back() + 1 * MiB, tight);
    std::size_t predicting = 0;
    for (std::uint64_t at : starts) {
        const auto r = rd.need(at, 15);
        rd.need(at + 15, 4000);
        if (r.size() < 2) continue;
        ++predicting;
        std::uint64_t predicted = 0;
        for (std::size_t i = 1; i < r.size(); ++i) predicted += r[i].size();
        CHECK(predicted <= tight.max_prediction_bytes);
    }
    CHECK(predicting >= 5);
}

TEST_CASE("range_plan: any sequence of needs gets ascending, disjoint ranges of pages not held", "[remote][range_plan]") {
    // Needs at pseudo-random places (a fixed seed): runs, jumps forwards and
    // back, repeats, needs across the end; with 4 KiB and 64 KiB pages and
    // a file that ends inside a page. The reader checks each answer.
    for (const std::uint64_t page : {std::uint64_t(4096), std::uint64_t(65536)}) {
        range_plan_limits l;
        l.page = page;
        const std::uint64_t size = 64 * MiB + 12345;
        reader rd(size, l);
        std::uint64_t state = 0x9E3779B97F4A7C15ull, at = 0;
        auto next = [&state]() {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            return state >> 33;
        };
        for (int i = 0; i < 20000; ++i) {
            const std::uint64_t r = next() % 100;
            if (r < 60) at += next() % 300;                       // a run
            else if (r < 85) at += 4096 + next() % (1 * MiB);     // a jump forwards
            else if (r < 95) at = next() % size;                  // anywhere
            else at = size - 1 - next() % 5000;                   // near the end
            if (at >= size) at = next() % size;
            const std::uint64_t length = 1 + next() % (r < 5 ? 200000 : 5000);
            INFO("page " << page << ", need " << i);
            rd.need(at, length);
        }
        // Nothing was asked twice: what was planned is what is held (the
        // last page counted whole).
        CHECK(rd.planned_bytes <= rd.plan.held_bytes());
        CHECK(rd.plan.held_bytes() - rd.planned_bytes < page);
        CHECK(rd.planned_bytes <= size);
    }
}

TEST_CASE("range_plan: distances just over a page are predicted without overlapping the need's range", "[remote][range_plan]") {
    // Small tensors, one page and a bit apart: the predictions start inside
    // or right after the need's own window; the reader checks they are merged.
    std::vector<std::uint64_t> starts;
    for (std::uint64_t k = 0; k < 3000; ++k) starts.push_back(100 + k * 4200);
    const layers_run r = walk_layers(starts, starts.back() + 64 * KiB, 50);
    INFO(describe(r));
    CHECK(r.plan_sizes.size() <= 40);
    CHECK(r.planned_bytes <= r.size);
}

TEST_CASE("range_plan: reached() carries a run over needs it did not plan", "[remote][range_plan]") {
    const range_plan_limits l;
    reader rd(200 * MiB);
    // A run, then a reader that went on to 3 MiB with bytes it had otherwise (a stream).
    for (std::uint64_t at = 0; at < 20 * KiB; at += 1000) rd.need(at, 100);
    const std::size_t planned = rd.plans.size();
    rd.plan.mark(0, 3 * MiB);
    rd.plan.reached(3 * MiB);
    // The need right after continues the run: its window is the grown one, not first_window.
    const auto r = rd.need(3 * MiB + 10, 20);
    REQUIRE(r.size() == 1);
    CHECK(r[0].begin == 3 * MiB);
    CHECK(r[0].size() > l.first_window);
    CHECK(rd.plans.size() == planned + 1);
    // Without reached(), the same need is a new run at first_window.
    reader fresh(200 * MiB);
    for (std::uint64_t at = 0; at < 20 * KiB; at += 1000) fresh.need(at, 100);
    fresh.plan.mark(0, 3 * MiB);
    const auto f = fresh.need(3 * MiB + 10, 20);
    REQUIRE(f.size() == 1);
    CHECK(f[0].size() == l.first_window);
    // reached() going backwards, or before any need, changes nothing.
    range_plan empty(10 * MiB);
    empty.reached(MiB);
    CHECK(empty.plan(MiB, 10).front().size() == l.first_window);
}
