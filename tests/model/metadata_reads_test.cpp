// The read plan of a metadata walk (onnxview/metadata_reads.hpp): which
// ranges are prefetched, which are left to random access. No timing: the
// advice is recorded, not given.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "../wire_builder.hpp"
#include "../io/tmpdir.hpp"
#include "onnxview/metadata_reads.hpp"
#include "onnxview/model.hpp"

using onnxview::access_hint;
using onnxview::advice_recipient;
using onnxview::metadata_read_limits;
using onnxview::plan_metadata_reads;
using onnxview::testing::wire_builder;

namespace {

struct advice {
    access_hint hint;
    std::uint64_t offset;
    std::uint64_t length;
};

struct recorder {
    std::vector<advice> calls;
    advice_recipient recipient() {
        advice_recipient to;
        to.advise = [](void* self, access_hint h, std::uint64_t offset, std::uint64_t length) {
            static_cast<recorder*>(self)->calls.push_back({h, offset, length});
        };
        to.user_data = this;
        return to;
    }
    // Bytes of [begin, end) covered by a willneed call.
    std::uint64_t prefetched(std::uint64_t begin, std::uint64_t end) const {
        std::uint64_t n = 0;
        for (const advice& a : calls) {
            if (a.hint != access_hint::willneed) continue;
            const std::uint64_t lo = std::max(begin, a.offset), hi = std::min(end, a.offset + a.length);
            if (hi > lo) n += hi - lo;
        }
        return n;
    }
};

std::vector<advice> plan(const std::string& bytes, const metadata_read_limits& limits) {
    recorder r;
    plan_metadata_reads(bytes, onnxview::schema::msg_ModelProto, r.recipient(), limits);
    return r.calls;
}

// Limits small enough for test-sized models; the page is 4 KiB.
metadata_read_limits small_limits() {
    metadata_read_limits l;
    l.payload_from = 1024;
    l.first_window = 4096;
    l.max_window = 16384;
    l.whole_below = 0;
    return l;
}

wire_builder small_node(int i) {
    const std::string name = "node_" + std::to_string(i);
    return wire_builder().field_bytes(1, "in_" + name).field_bytes(2, "out_" + name).field_bytes(3, name).field_bytes(4, "Relu");
}

// A ModelProto (ir_version 8) around a graph.
std::string model_of(const wire_builder& graph) {
    return wire_builder().field_varint(1, 8).field_message(7, graph).str();
}

void check_ascending_and_disjoint(const std::vector<advice>& calls) {
    std::uint64_t end = 0;
    for (std::size_t i = 1; i < calls.size(); ++i) {
        REQUIRE(calls[i].hint == access_hint::willneed);
        CHECK(calls[i].offset >= end);
        CHECK(calls[i].length > 0);
        end = calls[i].offset + calls[i].length;
    }
}

}  // namespace

TEST_CASE("metadata_reads: a file under whole_below is prefetched whole, without a scan") {
    metadata_read_limits l;
    const std::string bytes = model_of(wire_builder().field_message(1, small_node(0)));
    const auto calls = plan(bytes, l);
    REQUIRE(calls.size() == 1);
    CHECK(calls[0].hint == access_hint::willneed);
    CHECK(calls[0].offset == 0);
    CHECK(calls[0].length == 0);
    CHECK(plan("", l).empty());
}

TEST_CASE("metadata_reads: a metadata-dense file is prefetched in windows that double up to max_window") {
    wire_builder graph;
    for (int i = 0; i < 3000; ++i) graph.field_message(1, small_node(i));
    const std::string bytes = model_of(graph);
    REQUIRE(bytes.size() > 60000);
    recorder r;
    plan_metadata_reads(bytes, onnxview::schema::msg_ModelProto, r.recipient(), small_limits());
    const auto& calls = r.calls;
    REQUIRE(calls.size() >= 4);
    // Random access first, for the whole file, before any byte is read.
    CHECK(calls[0].hint == access_hint::random);
    CHECK(calls[0].offset == 0);
    CHECK(calls[0].length == 0);
    check_ascending_and_disjoint(calls);
    CHECK(calls[1].length == 4096);
    CHECK(calls[2].length == 8192);
    for (std::size_t i = 3; i + 1 < calls.size(); ++i) CHECK(calls[i].length == 16384);
    // Everything past the first page (faulted in by the first tag) is prefetched.
    CHECK(r.prefetched(4096, bytes.size()) == bytes.size() - 4096);
}

TEST_CASE("metadata_reads: payloads are not prefetched, the metadata around them is") {
    // Nodes, then initializers of 64 KiB raw_data, each followed by a small bias.
    wire_builder graph;
    for (int i = 0; i < 1000; ++i) graph.field_message(1, small_node(i));
    const std::string raw(64 << 10, '\x01');
    for (int i = 0; i < 8; ++i) {
        graph.field_message(5, wire_builder().field_varint(1, 16384).field_varint(2, 1).field_bytes(8, "w" + std::to_string(i)).field_bytes(9, raw));
        graph.field_message(5, wire_builder().field_varint(1, 4).field_varint(2, 1).field_bytes(8, "b" + std::to_string(i)).field_bytes(9, std::string(16, '\x02')));
    }
    const std::string bytes = model_of(graph);
    recorder r;
    plan_metadata_reads(bytes, onnxview::schema::msg_ModelProto, r.recipient(), small_limits());
    check_ascending_and_disjoint(r.calls);
    // Where each raw_data payload lies: the 64 KiB run of 0x01 bytes.
    std::vector<std::uint64_t> payloads;
    for (std::size_t at = bytes.find(raw); at != std::string::npos; at = bytes.find(raw, at + raw.size()))
        payloads.push_back(at);
    REQUIRE(payloads.size() == 8);
    // The first, after the nodes' long run: at most one window. The others,
    // after a short run (a bias): at most the page of the tensor's head; the
    // rest is left to random access.
    CHECK(r.prefetched(payloads[0], payloads[0] + raw.size()) <= small_limits().max_window);
    for (std::size_t i = 1; i < payloads.size(); ++i) {
        INFO("payload at " << payloads[i]);
        CHECK(r.prefetched(payloads[i], payloads[i] + raw.size()) <= 4096);
    }
    // The nodes before the first initializer are prefetched.
    CHECK(r.prefetched(4096, payloads[0] - 4096) == payloads[0] - 8192);
}

TEST_CASE("metadata_reads: messages are scanned inside by the schema, other long fields skipped") {
    // A Constant node whose value is a tensor of 64 KiB raw_data, between
    // nodes; and a long doc_string of the model, a string, never prefetched.
    const std::string raw(64 << 10, '\x01');
    const wire_builder tensor = wire_builder().field_varint(1, 16384).field_varint(2, 1).field_bytes(9, raw);
    const wire_builder attribute = wire_builder().field_bytes(1, "value").field_message(5, tensor).field_varint(20, 4);
    wire_builder graph;
    for (int i = 0; i < 50; ++i) graph.field_message(1, small_node(i));
    graph.field_message(1, wire_builder().field_bytes(2, "c").field_bytes(4, "Constant").field_message(5, attribute));
    for (int i = 50; i < 2000; ++i) graph.field_message(1, small_node(i));
    const std::string doc(64 << 10, '\x03');
    const std::string bytes = wire_builder().field_varint(1, 8).field_message(7, graph).field_bytes(6, doc).str();
    recorder r;
    plan_metadata_reads(bytes, onnxview::schema::msg_ModelProto, r.recipient(), small_limits());
    check_ascending_and_disjoint(r.calls);
    const std::uint64_t at = bytes.find(raw);
    CHECK(r.prefetched(at, at + raw.size()) <= 4096);
    // A payload right after a long metadata run: at most one window of it.
    const std::uint64_t doc_at = bytes.find(doc);
    CHECK(r.prefetched(doc_at, doc_at + doc.size()) <= small_limits().max_window);
    // The nodes after the constant (up to the page before doc_string) are.
    const std::uint64_t after = at + raw.size() + 4096;
    CHECK(r.prefetched(after, doc_at - 4096) == doc_at - 4096 - after);
}

TEST_CASE("metadata_reads: a malformed model ends the scan, the random advice stays") {
    std::string bytes = model_of(wire_builder().field_message(1, small_node(0)));
    bytes += std::string(20000, '\xff');  // an over-long varint where the next tag should be
    const auto calls = plan(bytes, small_limits());
    REQUIRE(!calls.empty());
    CHECK(calls[0].hint == access_hint::random);
    check_ascending_and_disjoint(calls);
}

TEST_CASE("metadata_reads: advise_metadata_reads advises mapped files only") {
    const std::string bytes = model_of(wire_builder().field_message(1, small_node(0)));
    const auto borrowed = onnxview::mapped_file::from_memory(bytes.data(), bytes.size());
    CHECK_FALSE(onnxview::advise_metadata_reads(borrowed));
    CHECK_FALSE(onnxview::advise_metadata_reads(onnxview::mapped_file()));
    // A mapped file under whole_below is prefetched whole, not made random.
    auto small = onnxview::mapped_file::open((std::string(ONNXVIEW_SOURCE_DIR) + "/testdata/small_cnn_inline.onnx").c_str());
    REQUIRE(small.ok());
    REQUIRE(small->kind() == onnxview::mapped_file::storage::mapped);
    CHECK_FALSE(onnxview::advise_metadata_reads(*small));
    metadata_read_limits scan_all;
    scan_all.whole_below = 0;
    scan_all.resident_samples = 0;
    CHECK(onnxview::advise_metadata_reads(*small, scan_all));
}

TEST_CASE("metadata_reads: a file already in memory is given no advice") {
    auto f = onnxview::mapped_file::open((std::string(ONNXVIEW_SOURCE_DIR) + "/testdata/small_cnn_inline.onnx").c_str());
    REQUIRE(f.ok());
    REQUIRE(f->kind() == onnxview::mapped_file::storage::mapped);
    unsigned sum = 0;  // every page read, so resident whatever the page cache held before
    for (std::size_t i = 0; i < f->size(); i += 4096) sum += static_cast<unsigned char>(f->data()[i]);
    (void)sum;
    REQUIRE(f->resident());
    metadata_read_limits scan_all;
    scan_all.whole_below = 0;
    CHECK_FALSE(onnxview::advise_metadata_reads(*f, scan_all));  // no scan, read-ahead left on
}

TEST_CASE("metadata_reads: copy_metadata_pages copies the metadata, not the payloads") {
    // A graph of nodes, then two tensors whose raw_data is a payload.
    wire_builder graph;
    for (int i = 0; i < 200; ++i) graph.field_message(1, small_node(i));
    const std::string payload(40000, '\x01');
    for (int i = 0; i < 2; ++i)
        graph.field_message(5, wire_builder().field_varint(1, 10000).field_varint(2, 1).field_bytes(8, "w" + std::to_string(i)).field_bytes(9, payload));
    const std::string bytes = model_of(graph);
    onnxview_test::tmpdir dir;
    REQUIRE(onnxview_test::write_file(dir / "m.onnx", bytes));
    auto f = onnxview::mapped_file::open((dir / "m.onnx").c_str());
    REQUIRE(f.ok());
    metadata_read_limits l = small_limits();
    CHECK(onnxview::copy_metadata_pages(*f, l).bytes == 0);  // under copy_from: nothing
    l.copy_from = 0;
    const onnxview::metadata_copy c = onnxview::copy_metadata_pages(*f, l);
    CHECK(c.bytes > 0);
    CHECK(c.bytes % 4096 == 0);
    CHECK(c.bytes < bytes.size() - 40000);  // most of the payloads stay mapped from the file
    CHECK(f->bytes() == bytes);
    const onnxview::model_view m = onnxview::parse_model(f->data(), f->size());
    REQUIRE(m.ok());
    CHECK(m.graph().node().size() == 200);
    CHECK(m.graph().initializer().size() == 2);
    // The budget stops it: too few bytes for the first range.
    l.max_copy_bytes = 1;
    CHECK(onnxview::copy_metadata_pages(*f, l).bytes == 0);
    CHECK(f->bytes() == bytes);
    const auto borrowed = onnxview::mapped_file::from_memory(bytes.data(), bytes.size());
    CHECK(onnxview::copy_metadata_pages(borrowed, l).bytes == 0);
}
