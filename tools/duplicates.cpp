// tools/duplicates.cpp - finding tensors stored more than once
// (duplicates.hpp).
#include "duplicates.hpp"

#include "output.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <utility>

#include "onnxview/data_types.hpp"
#include "onnxview/external_source.hpp"
#include "onnxview/stats.hpp"
#include "onnxview/tensor_data.hpp"

namespace onnxview_cli {
namespace {

using namespace onnxview;

// A streaming 64-bit hash of a byte sequence, the same however the bytes
// are split into update() calls. Only a filter: equal hashes are confirmed
// by comparing the payloads, so it needs to be fast, not strong.
class content_hash {
public:
    void update(const unsigned char* p, std::size_t n) {
        total_ += n;
        while (n > 0 && fill_ != 0) push_byte(*p++), --n;
        for (; n >= 8; p += 8, n -= 8) mix(load_le64(p));
        while (n > 0) push_byte(*p++), --n;
    }
    std::uint64_t digest() const {
        std::uint64_t h = h_;
        if (fill_ != 0) h = step(h, word_);
        return step(h, total_);
    }

private:
    static std::uint64_t load_le64(const unsigned char* p) {
        std::uint64_t w = 0;
        for (int i = 7; i >= 0; --i) w = (w << 8) | p[i];
        return w;
    }
    static std::uint64_t step(std::uint64_t h, std::uint64_t w) {
        h = (h ^ w) * 0x9E3779B97F4A7C15u;
        return h ^ (h >> 29);
    }
    void mix(std::uint64_t w) { h_ = step(h_, w); }
    void push_byte(unsigned char c) {
        word_ |= std::uint64_t(c) << (8 * fill_);
        if (++fill_ == 8) {
            mix(word_);
            word_ = 0;
            fill_ = 0;
        }
    }

    std::uint64_t h_ = 0x243F6A8885A308D3u;
    std::uint64_t word_ = 0;
    unsigned fill_ = 0;
    std::uint64_t total_ = 0;
};

// raw_data and external payloads of types at least a byte wide are already
// in the layout compared; every other payload (typed fields, sub-byte
// types, whose last byte may carry padding bits) goes element by element.
bool direct_bytes(const tensor_data& d) {
    return (d.storage() == storage_kind::raw || d.storage() == storage_kind::external) && !d.info().sub_byte();
}

// Feeds the payload of `d` to `h` in raw_data layout: each element's bit
// pattern little-endian, complex parts real first, sub-byte elements packed
// from the low bits with zero padding.
void hash_payload(const tensor_data& d, content_hash& h) {
    if (direct_bytes(d)) {
        const std::string_view b = d.bytes();
        h.update(reinterpret_cast<const unsigned char*>(b.data()), b.size());
        return;
    }
    const data_type_info& info = d.info();
    const bool complex = info.kind == element_kind::complex;
    const unsigned part_bytes = info.part_bits() / 8;
    unsigned char buffer[4096];
    std::size_t used = 0;
    unsigned sub = 0;  // sub-byte elements in buffer[used]
    element_cursor c(d);
    std::uint64_t lo = 0, hi = 0;
    while (c.next(lo, hi)) {
        if (used + 16 > sizeof buffer) {
            h.update(buffer, used);
            used = 0;
        }
        if (info.sub_byte()) {
            if (sub == 0) buffer[used] = 0;
            buffer[used] = static_cast<unsigned char>(buffer[used] | (lo << (sub * info.bits)));
            if (++sub == info.elements_per_entry) sub = 0, ++used;
            continue;
        }
        for (unsigned i = 0; i < part_bytes; ++i) buffer[used++] = static_cast<unsigned char>(lo >> (8 * i));
        if (complex)
            for (unsigned i = 0; i < part_bytes; ++i) buffer[used++] = static_cast<unsigned char>(hi >> (8 * i));
    }
    if (sub != 0) ++used;
    h.update(buffer, used);
}

struct candidate {
    std::size_t index;  // into the census
    tensor_data data;
};

}  // namespace

duplicate_report find_duplicates(const tensor_census& census, const char* model_path) {
    duplicate_report r;
    options opts{};
    set_external_source(model_path, opts);
    auto resolver = external_data_resolver::create(opts);
    const external_payload_source src = resolver ? external_source(resolver.value()) : external_payload_source{};

    // Only tensors that share data type and dims can be equal: group by both
    // first, from metadata alone.
    std::map<std::pair<std::int32_t, std::vector<std::int64_t>>, std::vector<std::size_t>> by_shape;
    for (std::size_t i = 0; i < census.tensors.size(); ++i) {
        const tensor_view& t = census.tensors[i].t;
        const data_type_info* info = find_data_type_info(t.data_type());
        if (info == nullptr || info->kind == element_kind::string) continue;
        std::vector<std::int64_t> dims;
        for (std::int64_t d : t.dims()) dims.push_back(d);
        by_shape[{t.data_type(), std::move(dims)}].push_back(i);
    }
    for (const auto& shape : by_shape) {
        if (shape.second.size() < 2) continue;
        std::map<std::uint64_t, std::vector<candidate>> by_hash;
        for (std::size_t i : shape.second) {
            const result<tensor_data> d = tensor_data::make(census.tensors[i].t, resolver ? &src : nullptr);
            if (!d) {
                ++r.unreadable;
                continue;
            }
            if (d->empty()) continue;
            content_hash h;
            hash_payload(*d, h);
            r.bytes_read += d->describe().byte_size;
            by_hash[h.digest()].push_back({i, *d});
        }
        for (const auto& bucket : by_hash) {
            // Equal hashes almost always mean equal values; each cluster is
            // confirmed against its first member all the same.
            std::vector<std::vector<const candidate*>> clusters;
            for (const candidate& c : bucket.second) {
                auto home = std::find_if(clusters.begin(), clusters.end(), [&](const std::vector<const candidate*>& k) {
                    r.bytes_read += c.data.describe().byte_size;
                    return same_values(k.front()->data, c.data);
                });
                if (home == clusters.end()) clusters.push_back({&c});
                else home->push_back(&c);
            }
            for (const auto& k : clusters) {
                if (k.size() < 2) continue;
                duplicate_group g;
                g.data_type = data_type_name(shape.first.first);
                g.dims = shape.first.second;
                g.bytes = k.front()->data.describe().byte_size;
                std::vector<const char*> ranges;  // payload addresses: equal for a shared range
                for (const candidate* c : k) {
                    g.tensors.push_back(census_label(census.tensors[c->index]));
                    const char* at = direct_bytes(c->data) ? c->data.bytes().data() : nullptr;
                    if (at == nullptr || std::find(ranges.begin(), ranges.end(), at) == ranges.end()) {
                        ++g.stored;
                        if (at != nullptr) ranges.push_back(at);
                    }
                }
                r.redundant_copies += g.stored - 1;
                r.wasted_bytes += g.wasted();
                r.groups.push_back(std::move(g));
            }
        }
    }
    std::stable_sort(r.groups.begin(), r.groups.end(),
                     [](const duplicate_group& a, const duplicate_group& b) { return a.wasted() > b.wasted(); });
    return r;
}

}  // namespace onnxview_cli
