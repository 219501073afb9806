/// An expression node. `id` is unique within a ruleset (coverage counters key on it).
public final class Expr: Sendable {
    /// Binary operators.
    public enum BinaryOp: String, Sendable {
        case and = "&&", or = "||", eq = "==", ne = "!=", lt = "<", le = "<=", gt = ">", ge = ">="
        case add = "+", sub = "-", mul = "*", div = "/", mod = "%", `in` = "in"
    }

    /// One part of a path literal: text or `$(expr)`.
    public enum PathPart: Sendable {
        case text(String)
        case interpolation(Expr)
    }

    /// The node kinds.
    public enum Kind: Sendable {
        case null
        case bool(Bool)
        case int(Int64)
        case float(Double)
        case string(String)
        case bytes([UInt8])
        case identifier(String)
        case list([Expr])
        case map([(Expr, Expr)])
        case path([PathPart])
        case member(Expr, String)
        case index(Expr, Expr)
        case slice(Expr, Expr?, Expr?)
        case call(Expr, [Expr])
        case not(Expr)
        case negate(Expr)
        case binary(BinaryOp, Expr, Expr)
        case isType(Expr, String)
        case ternary(Expr, Expr, Expr)
    }

    /// Unique id within the ruleset.
    public let id: Int
    /// Where the node starts.
    public let location: SourceLocation
    /// What it is.
    public let kind: Kind
    /// Levels of nodes from here to the deepest leaf (a literal is 1). Every pass over a ruleset
    /// recurses over the tree, so the parser bounds this (`Parser.maxExpressionDepth`).
    public let depth: Int
    /// The ruleset's source and this node's byte range in it: a range rather than a copy, since
    /// the nodes of a chain `a + b + c ...` overlap and copies would grow with its square.
    let source: SourceBytes
    let range: Range<Int>

    /// The source text of the node (for explanations and coverage).
    public var text: String { source.text(range) }

    init(id: Int, location: SourceLocation, kind: Kind, source: SourceBytes, range: Range<Int>) {
        self.id = id
        self.location = location
        self.kind = kind
        self.source = source
        self.range = range
        depth = 1 + kind.children.reduce(0) { max($0, $1.depth) }
    }
}

/// The UTF-8 text a ruleset was parsed from, shared by all of its nodes.
final class SourceBytes: Sendable {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The text of `range`, without surrounding white space.
    func text(_ range: Range<Int>) -> String {
        String(decoding: bytes[range], as: UTF8.self).trimmingScalars { $0.properties.isWhitespace }
    }
}

extension Expr {
    /// Direct sub-expressions.
    var children: [Expr] { kind.children }
}

extension Expr.Kind {
    /// The direct sub-expressions, in source order.
    var children: [Expr] {
        switch self {
        case .null, .bool, .int, .float, .string, .bytes, .identifier: return []
        case .list(let items): return items
        case .map(let entries): return entries.flatMap { [$0.0, $0.1] }
        case .path(let parts): return parts.compactMap { if case .interpolation(let e) = $0 { e } else { nil } }
        case .member(let e, _), .not(let e), .negate(let e), .isType(let e, _): return [e]
        case .index(let a, let b), .binary(_, let a, let b): return [a, b]
        case .slice(let e, let lo, let hi): return [e] + [lo, hi].compactMap { $0 }
        case .call(let f, let args): return [f] + args
        case .ternary(let c, let a, let b): return [c, a, b]
        }
    }
}

/// `function name(params) { let x = e; return body; }`.
public struct FunctionDecl: Sendable {
    /// Name.
    public var name: String
    /// Parameter names.
    public var params: [String]
    /// `let` bindings in order.
    public var lets: [(name: String, value: Expr)]
    /// The returned expression.
    public var body: Expr
    /// Where it is declared.
    public var location: SourceLocation
}

/// `allow methods: if condition;`.
public struct AllowStatement: Sendable {
    /// Methods as written (`read`, `write`, `get`, ...).
    public var methods: [String]
    /// The condition; nil means always.
    public var condition: Expr?
    /// Where it is declared.
    public var location: SourceLocation
    /// The statement's source text.
    public var text: String
}

/// One segment of a match path.
public enum MatchSegment: Sendable, Equatable {
    /// A literal segment.
    case literal(String)
    /// `{name}`: one segment.
    case variable(String)
    /// `{name=**}`: the rest of the path (v1: one or more segments; v2: zero or more).
    case recursive(String)
}

/// `match /path { ... }`.
public struct MatchBlock: Sendable {
    /// Path segments, relative to the enclosing block.
    public var path: [MatchSegment]
    /// Allow statements.
    public var allows: [AllowStatement]
    /// Functions declared in the block.
    public var functions: [FunctionDecl]
    /// Nested blocks.
    public var children: [MatchBlock]
    /// Where the block starts.
    public var location: SourceLocation
}

/// A parsed ruleset: `rules_version` and the `service cloud.firestore` body.
public struct RulesAST: Sendable {
    /// 1 or 2.
    public var version: Int
    /// The service name (`cloud.firestore`).
    public var service: String
    /// Top-level functions of the service.
    public var functions: [FunctionDecl]
    /// Top-level match blocks.
    public var matches: [MatchBlock]
}
