#include "writers/convert/pickle_reader.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <unordered_map>

namespace mindrecord::convert {
namespace {

// CIFAR batches nest a few levels; a crafted pickle can nest without bound
// (TUPLE1 repeated), and freeing such a tree recurses once per level.
constexpr uint32_t kMaxDepth = 64;

PickleRef Make(PickleValue::Kind k) {
  auto v = std::make_shared<PickleValue>();
  v->kind = k;
  return v;
}

class Parser {
 public:
  Parser(std::string_view d, const std::string& file) : d_(d), file_(file) {}

  Result<PickleRef> Run() {
    while (pos_ < d_.size()) {
      const size_t op_at = pos_;
      const uint8_t op = static_cast<uint8_t>(d_[pos_++]);
      Status st = Step(op, op_at);
      if (!st.ok()) return st;
      if (done_) {
        if (stack_.size() != 1) return Err(op_at, "STOP with " + std::to_string(stack_.size()) + " values on the stack");
        return stack_.back();
      }
    }
    return Err(pos_, "no STOP opcode (truncated pickle)");
  }

 private:
  Status Err(size_t at, const std::string& what) const {
    return Status::Corruption(file_ + ": pickle offset " + std::to_string(at) + ": " + what);
  }
  Status Need(size_t n) const {
    if (d_.size() - pos_ < n) return Err(pos_, "truncated (needs " + std::to_string(n) + " more bytes)");
    return Status::OK();
  }
  uint64_t Le(size_t n) {
    uint64_t v = 0;
    for (size_t k = 0; k < n; ++k) v |= uint64_t{static_cast<uint8_t>(d_[pos_ + k])} << (8 * k);
    pos_ += n;
    return v;
  }
  Result<PickleRef> Pop(size_t at) {
    if (stack_.size() <= MarkBase()) return Err(at, "stack underflow");
    PickleRef v = stack_.back();
    stack_.pop_back();
    return v;
  }
  size_t MarkBase() const { return marks_.empty() ? 0 : marks_.back(); }
  Result<std::vector<PickleRef>> PopMark(size_t at) {
    if (marks_.empty()) return Err(at, "no MARK for this opcode");
    size_t base = marks_.back();
    marks_.pop_back();
    std::vector<PickleRef> items(stack_.begin() + static_cast<long>(base), stack_.end());
    stack_.resize(base);
    return items;
  }
  Status PushString(PickleValue::Kind kind, size_t len_bytes) {
    MR_RETURN_IF_ERROR(Need(len_bytes));
    uint64_t len = Le(len_bytes);
    MR_RETURN_IF_ERROR(Need(len));
    auto v = Make(kind);
    v->s.assign(d_.data() + pos_, len);
    pos_ += len;
    stack_.push_back(v);
    return Status::OK();
  }
  // Puts `child` into `parent` (items, or the BUILD state). A value inside
  // another is never mutated again, so the tree is built bottom-up: no cycle,
  // and every depth is known when it is adopted.
  Status Adopt(PickleValue& parent, const PickleRef& child, size_t at, bool as_state = false) {
    if (child.get() == &parent) return Err(at, "puts a value inside itself (recursive pickles are not supported)");
    if (child->depth >= kMaxDepth) return Err(at, "values nested deeper than " + std::to_string(kMaxDepth) + " levels");
    parent.depth = std::max(parent.depth, child->depth + 1);
    child->contained = true;
    if (as_state) {
      parent.state = child;
    } else {
      parent.items.push_back(child);
    }
    return Status::OK();
  }
  Status AdoptAll(PickleValue& parent, const std::vector<PickleRef>& children, size_t at) {
    for (const auto& c : children) MR_RETURN_IF_ERROR(Adopt(parent, c, at));
    return Status::OK();
  }
  // The container on top of the stack, if it is of `kind` and still mutable.
  Result<PickleValue*> Target(PickleValue::Kind kind, size_t at, const char* what) {
    if (stack_.size() <= MarkBase() || stack_.back()->kind != kind) return Err(at, what);
    if (stack_.back()->contained)
      return Err(at, "modifies a value already inside another (recursive pickles are not supported)");
    return stack_.back().get();
  }
  Status Tuple(size_t n, size_t at) {
    if (stack_.size() < MarkBase() + n) return Err(at, "stack underflow building a tuple");
    auto t = Make(PickleValue::Kind::kTuple);
    MR_RETURN_IF_ERROR(AdoptAll(*t, std::vector<PickleRef>(stack_.end() - static_cast<long>(n), stack_.end()), at));
    stack_.resize(stack_.size() - n);
    stack_.push_back(t);
    return Status::OK();
  }
  Status Memo(uint64_t idx, size_t at) {
    if (stack_.empty()) return Err(at, "memo put on an empty stack");
    memo_[idx] = stack_.back();
    return Status::OK();
  }
  Status Get(uint64_t idx, size_t at) {
    auto it = memo_.find(idx);
    if (it == memo_.end()) return Err(at, "memo get of unknown index " + std::to_string(idx));
    stack_.push_back(it->second);
    return Status::OK();
  }
  Result<std::string> Line(size_t at) {
    size_t nl = d_.find('\n', pos_);
    if (nl == std::string_view::npos) return Err(at, "unterminated GLOBAL name");
    std::string s(d_.substr(pos_, nl - pos_));
    pos_ = nl + 1;
    return s;
  }

  Status Step(uint8_t op, size_t at);

  std::string_view d_;
  const std::string& file_;
  size_t pos_ = 0;
  bool done_ = false;
  std::vector<PickleRef> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, PickleRef> memo_;
};

Status Parser::Step(uint8_t op, size_t at) {
  using K = PickleValue::Kind;
  switch (op) {
    case 0x80: MR_RETURN_IF_ERROR(Need(1)); if (static_cast<uint8_t>(d_[pos_]) > 5) return Err(at, "unsupported pickle protocol " + std::to_string(static_cast<uint8_t>(d_[pos_]))); pos_++; return Status::OK();  // PROTO
    case 0x95: MR_RETURN_IF_ERROR(Need(8)); pos_ += 8; return Status::OK();  // FRAME (framing is advisory)
    case '.': done_ = true; return Status::OK();  // STOP
    case '(': marks_.push_back(stack_.size()); return Status::OK();  // MARK
    case '}': stack_.push_back(Make(K::kDict)); return Status::OK();
    case ']': stack_.push_back(Make(K::kList)); return Status::OK();
    case ')': stack_.push_back(Make(K::kTuple)); return Status::OK();
    case 'N': stack_.push_back(Make(K::kNone)); return Status::OK();
    case 0x88: case 0x89: { auto v = Make(K::kBool); v->i = op == 0x88; stack_.push_back(v); return Status::OK(); }
    case 'q': MR_RETURN_IF_ERROR(Need(1)); return Memo(Le(1), at);  // BINPUT
    case 'r': MR_RETURN_IF_ERROR(Need(4)); return Memo(Le(4), at);  // LONG_BINPUT
    case 0x94: return Memo(memo_.size(), at);                       // MEMOIZE
    case 'h': MR_RETURN_IF_ERROR(Need(1)); return Get(Le(1), at);   // BINGET
    case 'j': MR_RETURN_IF_ERROR(Need(4)); return Get(Le(4), at);   // LONG_BINGET
    case 'C': return PushString(K::kBytes, 1);     // SHORT_BINBYTES
    case 'B': return PushString(K::kBytes, 4);     // BINBYTES
    case 0x8e: return PushString(K::kBytes, 8);    // BINBYTES8
    case 'U': return PushString(K::kBytes, 1);     // SHORT_BINSTRING (Python 2 str: raw bytes)
    case 'T': return PushString(K::kBytes, 4);     // BINSTRING
    case 0x8c: return PushString(K::kStr, 1);      // SHORT_BINUNICODE
    case 'X': return PushString(K::kStr, 4);       // BINUNICODE
    case 0x8d: return PushString(K::kStr, 8);      // BINUNICODE8
    case 'K': case 'M': case 'J': {                // BININT1, BININT2, BININT
      size_t n = op == 'K' ? 1 : op == 'M' ? 2 : 4;
      MR_RETURN_IF_ERROR(Need(n));
      uint64_t raw = Le(n);
      auto v = Make(K::kInt);
      v->i = op == 'J' ? static_cast<int64_t>(static_cast<int32_t>(raw)) : static_cast<int64_t>(raw);
      stack_.push_back(v);
      return Status::OK();
    }
    case 0x8a: {  // LONG1: little-endian two's complement, at most 8 bytes here
      MR_RETURN_IF_ERROR(Need(1));
      size_t n = Le(1);
      if (n > 8) return Err(at, "integer wider than 64 bits");
      MR_RETURN_IF_ERROR(Need(n));
      uint64_t raw = Le(n);
      if (n > 0 && n < 8 && (raw >> (8 * n - 1)) & 1) raw |= ~uint64_t{0} << (8 * n);
      auto v = Make(K::kInt);
      v->i = static_cast<int64_t>(raw);
      stack_.push_back(v);
      return Status::OK();
    }
    case 'G': {  // BINFLOAT, big-endian
      MR_RETURN_IF_ERROR(Need(8));
      uint64_t raw = 0;
      for (int k = 0; k < 8; ++k) raw = (raw << 8) | static_cast<uint8_t>(d_[pos_ + k]);
      pos_ += 8;
      auto v = Make(K::kFloat);
      std::memcpy(&v->f, &raw, 8);
      stack_.push_back(v);
      return Status::OK();
    }
    case 't': {
      MR_ASSIGN_OR_RETURN(auto items, PopMark(at));
      auto t = Make(K::kTuple);
      MR_RETURN_IF_ERROR(AdoptAll(*t, items, at));
      stack_.push_back(t);
      return Status::OK();
    }
    case 0x85: return Tuple(1, at);
    case 0x86: return Tuple(2, at);
    case 0x87: return Tuple(3, at);
    case 'c': {  // GLOBAL "module\nname\n"
      MR_ASSIGN_OR_RETURN(std::string module, Line(at));
      MR_ASSIGN_OR_RETURN(std::string name, Line(at));
      auto g = Make(K::kGlobal);
      g->s = module + " " + name;
      stack_.push_back(g);
      return Status::OK();
    }
    case 0x93: {  // STACK_GLOBAL
      MR_ASSIGN_OR_RETURN(PickleRef name, Pop(at));
      MR_ASSIGN_OR_RETURN(PickleRef module, Pop(at));
      if (name->kind != K::kStr || module->kind != K::kStr) return Err(at, "STACK_GLOBAL needs two str values");
      auto g = Make(K::kGlobal);
      g->s = module->s + " " + name->s;
      stack_.push_back(g);
      return Status::OK();
    }
    case 'R': {  // REDUCE: recorded, never called
      MR_ASSIGN_OR_RETURN(PickleRef args, Pop(at));
      MR_ASSIGN_OR_RETURN(PickleRef fn, Pop(at));
      if (fn->kind != K::kGlobal || args->kind != K::kTuple) return Err(at, "REDUCE needs a global and an argument tuple");
      auto r = Make(K::kReduce);
      MR_RETURN_IF_ERROR(AdoptAll(*r, {fn, args}, at));
      stack_.push_back(r);
      return Status::OK();
    }
    case 'b': {  // BUILD
      MR_ASSIGN_OR_RETURN(PickleRef state, Pop(at));
      if (stack_.size() <= MarkBase()) return Err(at, "BUILD on an empty stack");
      MR_ASSIGN_OR_RETURN(PickleValue * obj, Target(K::kReduce, at, "BUILD on a value that is not a reconstructed object"));
      if (obj->state) return Err(at, "BUILD twice on one object");
      return Adopt(*obj, state, at, /*as_state=*/true);
    }
    case 'a': {  // APPEND
      MR_ASSIGN_OR_RETURN(PickleRef v, Pop(at));
      MR_ASSIGN_OR_RETURN(PickleValue * list, Target(K::kList, at, "APPEND to a non-list"));
      return Adopt(*list, v, at);
    }
    case 'e': {  // APPENDS
      MR_ASSIGN_OR_RETURN(auto items, PopMark(at));
      MR_ASSIGN_OR_RETURN(PickleValue * list, Target(K::kList, at, "APPENDS to a non-list"));
      return AdoptAll(*list, items, at);
    }
    case 's': {  // SETITEM
      MR_ASSIGN_OR_RETURN(PickleRef v, Pop(at));
      MR_ASSIGN_OR_RETURN(PickleRef k, Pop(at));
      MR_ASSIGN_OR_RETURN(PickleValue * dict, Target(K::kDict, at, "SETITEM on a non-dict"));
      return AdoptAll(*dict, {k, v}, at);
    }
    case 'u': {  // SETITEMS
      MR_ASSIGN_OR_RETURN(auto items, PopMark(at));
      if (items.size() % 2 != 0) return Err(at, "SETITEMS with an odd number of values");
      MR_ASSIGN_OR_RETURN(PickleValue * dict, Target(K::kDict, at, "SETITEMS on a non-dict"));
      return AdoptAll(*dict, items, at);
    }
    default: {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "0x%02x", op);
      return Err(at, std::string("unsupported pickle opcode ") + hex + " (not a CIFAR batch file?)");
    }
  }
}

}  // namespace

PickleRef PickleValue::Get(std::string_view key) const {
  if (kind != Kind::kDict) return nullptr;
  for (size_t k = 0; k + 1 < items.size(); k += 2) {
    const auto& kv = items[k];
    if ((kv->kind == Kind::kStr || kv->kind == Kind::kBytes) && kv->s == key) return items[k + 1];
  }
  return nullptr;
}

Result<PickleRef> ParsePickle(std::string_view data, const std::string& file) { return Parser(data, file).Run(); }

namespace {

// Python 3 pickles of Python 2 byte strings: _codecs.encode(str, 'latin1').
Result<std::string> BytesOf(const PickleRef& v, const std::string& what) {
  using K = PickleValue::Kind;
  if (v->kind == K::kBytes) return v->s;
  if (v->kind == K::kReduce && v->items[0]->s == "_codecs encode" && v->items[1]->items.size() == 2 &&
      v->items[1]->items[0]->kind == K::kStr) {
    const std::string& u = v->items[1]->items[0]->s;  // UTF-8 of code points < 256
    std::string out;
    for (size_t k = 0; k < u.size(); ++k) {
      auto c = static_cast<uint8_t>(u[k]);
      if (c < 0x80) {
        out += static_cast<char>(c);
      } else if ((c & 0xE0) == 0xC0 && k + 1 < u.size() && c <= 0xC3) {
        out += static_cast<char>(((c & 0x03) << 6) | (static_cast<uint8_t>(u[++k]) & 0x3F));
      } else {
        return Status::Corruption(what + ": latin1 payload holds a code point above 255");
      }
    }
    return out;
  }
  return Status::Corruption(what + ": expected a bytes payload");
}

}  // namespace

Result<NdArrayU8> PickleToNdArrayU8(const PickleRef& v, const std::string& what) {
  using K = PickleValue::Kind;
  if (!v || v->kind != K::kReduce || (v->items[0]->s != "numpy.core.multiarray _reconstruct" &&
                                      v->items[0]->s != "numpy._core.multiarray _reconstruct"))
    return Status::Corruption(what + ": expected a numpy array");
  const PickleRef& st = v->state;
  // state = (version, shape, dtype, is_fortran, data)
  if (!st || st->kind != K::kTuple || st->items.size() != 5) return Status::Corruption(what + ": bad numpy array state");
  const PickleRef& shape = st->items[1];
  const PickleRef& dtype = st->items[2];
  if (shape->kind != K::kTuple) return Status::Corruption(what + ": numpy shape is not a tuple");
  if (dtype->kind != K::kReduce || dtype->items[0]->s != "numpy dtype" || dtype->items[1]->items.empty() ||
      (dtype->items[1]->items[0]->kind != K::kStr && dtype->items[1]->items[0]->kind != K::kBytes))
    return Status::Corruption(what + ": bad numpy dtype");
  const std::string& code = dtype->items[1]->items[0]->s;
  if (code != "u1" && code != "|u1") return Status::NotSupported(what + ": numpy dtype '" + code + "', expected uint8");
  if (st->items[3]->kind == K::kBool && st->items[3]->i != 0)
    return Status::NotSupported(what + ": Fortran-ordered numpy array");
  NdArrayU8 out;
  uint64_t count = 1;
  for (const auto& d : shape->items) {
    if (d->kind != K::kInt || d->i < 0) return Status::Corruption(what + ": bad numpy dimension");
    out.shape.push_back(d->i);
    if (__builtin_mul_overflow(count, static_cast<uint64_t>(d->i), &count))
      return Status::Corruption(what + ": numpy shape overflows 64 bits");
  }
  MR_ASSIGN_OR_RETURN(out.data, BytesOf(st->items[4], what));
  if (out.data.size() != count)
    return Status::Corruption(what + ": numpy array holds " + std::to_string(out.data.size()) + " bytes, its shape needs " +
                              std::to_string(count));
  return out;
}

Result<std::vector<int64_t>> PickleToIntList(const PickleRef& v, const std::string& what) {
  if (!v || v->kind != PickleValue::Kind::kList) return Status::Corruption(what + ": expected a list of ints");
  std::vector<int64_t> out;
  out.reserve(v->items.size());
  for (const auto& x : v->items) {
    if (x->kind != PickleValue::Kind::kInt) return Status::Corruption(what + ": expected a list of ints");
    out.push_back(x->i);
  }
  return out;
}

}  // namespace mindrecord::convert
