// onnxview/input_iterator.hpp - what every input iterator of the library
// shares: the standard member types, increment and comparison.
//
// Every range here (repeated scalars, repeated messages and strings, tensor
// elements and blocks, a cursor's packed elements) is walked once, front to
// back, and its end iterator is a default-constructed one. An iterator
// derives from input_iterator<Itself, Value> and gives it, privately (with
// `friend detail::input_iterator<...>`), two functions:
//   void advance() noexcept;       // move to the next element, or to the end
//   bool at_end() const noexcept;  // true for the end iterator
// Two iterators compare equal when both are at the end or neither is, which
// is all `it != end` needs.
#ifndef ONNXVIEW_INPUT_ITERATOR_HPP
#define ONNXVIEW_INPUT_ITERATOR_HPP

#include <cstddef>
#include <iterator>

namespace onnxview {
namespace detail {

template <class Derived, class Value, class Reference = Value>
class input_iterator {
public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Value;
    using difference_type = std::ptrdiff_t;
    using pointer = const Value*;
    using reference = Reference;

    Derived& operator++() noexcept {
        self().advance();
        return self();
    }
    void operator++(int) noexcept { self().advance(); }
    friend bool operator==(const Derived& a, const Derived& b) noexcept { return ended(a) == ended(b); }
    friend bool operator!=(const Derived& a, const Derived& b) noexcept { return ended(a) != ended(b); }

private:
    // Members, not the friend operators, are what Derived befriends.
    Derived& self() noexcept { return static_cast<Derived&>(*this); }
    static bool ended(const Derived& d) noexcept { return d.at_end(); }
};

}  // namespace detail
}  // namespace onnxview

#endif  // ONNXVIEW_INPUT_ITERATOR_HPP
