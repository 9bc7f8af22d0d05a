// src/profile/value_table.hpp - the value entries of one scope, by name.
// Private to src/profile/.
//
// The profiler looks a name up for every input and output of every node (a
// 100k-node model has about 300k names). A node-based std::unordered_map
// spent a fifth of `profile`'s time there: one allocation per entry, chains
// walked through cold memory, and as much again to free it all. This keeps
// the entries in blocks (an entry never moves, so references stay valid
// while others are added) and finds them through an open-addressing table
// of indices that stores each name's hash beside its index.
#ifndef ONNXVIEW_SRC_PROFILE_VALUE_TABLE_HPP
#define ONNXVIEW_SRC_PROFILE_VALUE_TABLE_HPP

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

namespace onnxview {
namespace profile_detail {

template <class Entry>
class value_table {
public:
    // Room for `n` names without growing the index.
    void reserve(std::size_t n) {
        if (over_load(n)) rehash(n);
    }
    std::size_t size() const noexcept { return size_; }

    // The entry of `name` (which must outlive the table), default-made on first use.
    Entry& operator[](std::string_view name) {
        if (over_load(size_ + 1)) rehash(size_ + 1);
        const std::size_t h = std::hash<std::string_view>()(name);
        for (std::size_t i = h & (slots_.size() - 1);; i = (i + 1) & (slots_.size() - 1)) {
            slot& s = slots_[i];
            if (s.index == empty) {
                if (size_ % block_size == 0) blocks_.push_back(std::make_unique<named[]>(block_size));
                named& n = at(size_);
                n.name = name;
                s = {static_cast<std::uint32_t>(h), static_cast<std::uint32_t>(size_++)};
                return n.entry;
            }
            if (s.hash == static_cast<std::uint32_t>(h) && at(s.index).name == name) return at(s.index).entry;
        }
    }

    // The entry of `name`, or null.
    Entry* find(std::string_view name) noexcept {
        if (size_ == 0) return nullptr;
        const std::size_t h = std::hash<std::string_view>()(name);
        for (std::size_t i = h & (slots_.size() - 1);; i = (i + 1) & (slots_.size() - 1)) {
            const slot& s = slots_[i];
            if (s.index == empty) return nullptr;
            if (s.hash == static_cast<std::uint32_t>(h) && at(s.index).name == name) return &at(s.index).entry;
        }
    }

    // f(name, entry) for every entry, in the order the names came.
    template <class F>
    void for_each(F&& f) {
        for (std::size_t i = 0; i < size_; ++i) f(at(i).name, at(i).entry);
    }
    template <class F>
    void for_each(F&& f) const {
        for (std::size_t i = 0; i < size_; ++i) f(at(i).name, static_cast<const Entry&>(at(i).entry));
    }

private:
    struct named {
        std::string_view name;
        Entry entry;
    };
    struct slot {
        std::uint32_t hash = 0;  // the name's hash, low bits: most mismatches end here
        std::uint32_t index = empty;
    };
    static constexpr std::uint32_t empty = UINT32_MAX;
    // Small, so that the many small scopes (bodies, function expansions)
    // cost little; large enough that a big graph allocates rarely.
    static constexpr std::size_t block_size = 32;

    // Linear probing stays short up to 3/4 full.
    bool over_load(std::size_t n) const noexcept { return 4 * n > 3 * slots_.size(); }

    named& at(std::size_t i) const noexcept { return blocks_[i / block_size][i % block_size]; }

    // A power of two of slots that holds `names` within the load.
    void rehash(std::size_t names) {
        std::size_t n = 16;
        while (4 * names > 3 * n) n *= 2;
        std::vector<slot> old(n);
        old.swap(slots_);
        for (const slot& s : old) {
            if (s.index == empty) continue;
            std::size_t i = s.hash & (n - 1);
            while (slots_[i].index != empty) i = (i + 1) & (n - 1);
            slots_[i] = s;
        }
    }

    std::vector<std::unique_ptr<named[]>> blocks_;
    std::vector<slot> slots_;
    std::size_t size_ = 0;
};

}  // namespace profile_detail
}  // namespace onnxview

#endif  // ONNXVIEW_SRC_PROFILE_VALUE_TABLE_HPP
