// A minimal JSON value and reader for the conformance case files: exact
// integers (Int64), order-free object equality, no Foundation number or
// boolean bridging to reason about.

enum J: Equatable, CustomStringConvertible {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([J])
    case object([String: J])

    subscript(key: String) -> J {
        if case .object(let o) = self { return o[key] ?? .null }
        return .null
    }
    var isNull: Bool { if case .null = self { return true }; return false }
    var str: String? { if case .string(let s) = self { return s }; return nil }
    var int: Int64? { if case .int(let i) = self { return i }; return nil }
    var u64: UInt64? { int.map { UInt64($0) } }
    var bool: Bool? { if case .bool(let b) = self { return b }; return nil }
    var arr: [J] { if case .array(let a) = self { return a }; return [] }
    var obj: [String: J]? { if case .object(let o) = self { return o }; return nil }

    /// Compact JSON text.
    var description: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return String(d)
        case .string(let s):
            var out = "\""
            for u in s.unicodeScalars {
                switch u {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                default:
                    if u.value < 0x20 {
                        let h = String(u.value, radix: 16)
                        out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
                    } else {
                        out.unicodeScalars.append(u)
                    }
                }
            }
            return out + "\""
        case .array(let a): return "[" + a.map { $0.description }.joined(separator: ",") + "]"
        case .object(let o): return "{" + o.map { J.string($0.key).description + ":" + $0.value.description }.joined(separator: ",") + "}"
        }
    }

    static func parse(_ text: String) throws -> J {
        var p = JParser(Array(text.unicodeScalars))
        let v = try p.value()
        p.ws()
        guard p.i == p.s.count else { throw JError.syntax("trailing data at \(p.i)") }
        return v
    }
}

enum JError: Error { case syntax(String) }

struct JParser {
    let s: [Unicode.Scalar]
    var i = 0
    init(_ s: [Unicode.Scalar]) { self.s = s }

    mutating func ws() { while i < s.count, s[i] == " " || s[i] == "\n" || s[i] == "\r" || s[i] == "\t" { i += 1 } }

    mutating func value() throws -> J {
        ws()
        guard i < s.count else { throw JError.syntax("unexpected end") }
        switch s[i] {
        case "{":
            i += 1; var o: [String: J] = [:]; ws()
            if s[i] == "}" { i += 1; return .object(o) }
            while true {
                ws(); let k = try string(); ws()
                guard s[i] == ":" else { throw JError.syntax("expected : at \(i)") }
                i += 1; o[k] = try value(); ws()
                let c = s[i]; i += 1
                if c == "}" { return .object(o) }
                guard c == "," else { throw JError.syntax("expected , at \(i - 1)") }
            }
        case "[":
            i += 1; var a: [J] = []; ws()
            if s[i] == "]" { i += 1; return .array(a) }
            while true {
                a.append(try value()); ws()
                let c = s[i]; i += 1
                if c == "]" { return .array(a) }
                guard c == "," else { throw JError.syntax("expected , at \(i - 1)") }
            }
        case "\"": return .string(try string())
        case "t": i += 4; return .bool(true)
        case "f": i += 5; return .bool(false)
        case "n": i += 4; return .null
        default:
            let start = i
            while i < s.count, "-+.eE0123456789".unicodeScalars.contains(s[i]) { i += 1 }
            var t = ""; t.unicodeScalars.append(contentsOf: s[start..<i])
            if let n = Int64(t) { return .int(n) }
            guard let d = Double(t) else { throw JError.syntax("bad number \(t)") }
            return .double(d)
        }
    }

    mutating func hex4() -> UInt32 {
        var t = ""; t.unicodeScalars.append(contentsOf: s[i..<i + 4]); i += 4
        return UInt32(t, radix: 16) ?? 0xFFFD
    }

    mutating func string() throws -> String {
        guard s[i] == "\"" else { throw JError.syntax("expected string at \(i)") }
        i += 1
        var out = String.UnicodeScalarView()
        while true {
            let c = s[i]; i += 1
            if c == "\"" { return String(out) }
            if c != "\\" { out.append(c); continue }
            let e = s[i]; i += 1
            switch e {
            case "n": out.append("\n")
            case "t": out.append("\t")
            case "r": out.append("\r")
            case "b": out.append("\u{8}")
            case "f": out.append("\u{c}")
            case "u":
                var v = hex4()
                if (0xD800..<0xDC00).contains(v), s[i] == "\\", s[i + 1] == "u" {
                    i += 2
                    let lo = hex4()
                    v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00)
                }
                out.append(Unicode.Scalar(v) ?? "\u{FFFD}")
            default: out.append(e)
            }
        }
    }
}
