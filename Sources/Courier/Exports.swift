// `import Courier` is all a user writes. Courier's API is made of Foundation's types (`URL`,
// `Data`, `URLRequest`, `URLSessionConfiguration`, `HTTPURLResponse`...), and on Linux the
// networking half of them lives in FoundationNetworking: without these re-exports, code that
// names `URLRequest` would need `import FoundationNetworking` on Linux alone, and the compiler's
// message for it ("type 'URLSessionConfiguration' (aka 'AnyObject') has no member 'default'")
// does not say so.
@_exported import Foundation
#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif
