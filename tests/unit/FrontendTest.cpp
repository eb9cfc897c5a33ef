//===- FrontendTest.cpp - Lexer, parser, AST dump and MLIRGen tests -------===//

#include "tilemla/Frontend/AST.h"
#include "tilemla/Frontend/Lexer.h"
#include "tilemla/Frontend/MLIRGen.h"
#include "tilemla/Frontend/Parser.h"

#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

#include <fstream>
#include <sstream>

using namespace tilemla;

namespace {

std::vector<Tok> kinds(llvm::StringRef text, DiagnosticEngine &diags) {
  Lexer lexer(text, diags);
  std::vector<Tok> out;
  for (const Token &t : lexer.lexAll())
    out.push_back(t.kind);
  return out;
}

/// Parses `text`; returns the diagnostics and sets `dump` to the AST dump.
std::string parse(const std::string &text, std::string *dump = nullptr) {
  SourceFile file("t.tile", text);
  DiagnosticEngine diags(&file);
  auto module = parseSource(file, diags);
  if (dump) {
    llvm::raw_string_ostream os(*dump);
    dumpAST(*module, os);
  }
  return diags.str();
}

struct GenResult {
  std::string ir;
  std::string diags;
};

GenResult gen(const std::string &text, Specialization spec = {},
              llvm::StringRef kernel = "") {
  SourceFile file("t.tile", text);
  DiagnosticEngine diags(&file);
  auto module = parseSource(file, diags);
  GenResult r;
  if (!diags.hasErrors()) {
    mlir::MLIRContext ctx;
    auto m = mlirGen(ctx, *module, kernel, spec, diags);
    if (m) {
      llvm::raw_string_ostream os(r.ir);
      m->print(os);
    }
  }
  r.diags = diags.str();
  return r;
}

std::string readExample(const char *name) {
  std::ifstream in(std::string(TILEMLA_SOURCE_DIR) + "/kernels/examples/" +
                   name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool contains(const std::string &s, const std::string &sub) {
  return s.find(sub) != std::string::npos;
}

} // namespace

//===----------------------------------------------------------------------===//
// Lexer
//===----------------------------------------------------------------------===//

TEST(Lexer, TokensAndLiterals) {
  DiagnosticEngine diags;
  Lexer lexer("kernel f(x: *f32) { a = 0x10 + 1e-3 * 2.5; } # c\n// c2\n"
              "b <<= >= != == static_for \"s\\n\"",
              diags);
  std::vector<Token> toks = lexer.lexAll();
  ASSERT_FALSE(diags.hasErrors()) << diags.str();
  EXPECT_EQ(toks[0].kind, Tok::KwKernel);
  EXPECT_EQ(toks[5].kind, Tok::Star);
  EXPECT_EQ(toks[11].kind, Tok::IntLit);
  EXPECT_EQ(toks[11].intValue, 16u);
  EXPECT_EQ(toks[13].kind, Tok::FloatLit);
  EXPECT_DOUBLE_EQ(toks[13].floatValue, 1e-3);
  EXPECT_EQ(toks[15].kind, Tok::FloatLit);
  EXPECT_DOUBLE_EQ(toks[15].floatValue, 2.5);
  // After the comments: b << = >= != == static_for "s\n"
  EXPECT_EQ(toks[18].kind, Tok::Identifier);
  EXPECT_EQ(toks[18].loc, SourceLoc(3, 1));
  EXPECT_EQ(toks[19].kind, Tok::Shl);
  EXPECT_EQ(toks[20].kind, Tok::Assign);
  EXPECT_EQ(toks[21].kind, Tok::Ge);
  EXPECT_EQ(toks[22].kind, Tok::Ne);
  EXPECT_EQ(toks[23].kind, Tok::EqEq);
  EXPECT_EQ(toks[24].kind, Tok::KwStaticFor);
  EXPECT_EQ(toks[25].kind, Tok::StringLit);
  EXPECT_EQ(toks[25].strValue, "s\n");
  EXPECT_EQ(toks.back().kind, Tok::Eof);
}

TEST(Lexer, KeywordsAndMemberAccess) {
  DiagnosticEngine diags;
  std::vector<Tok> k = kinds("True False None and or not x.shape 1.to", diags);
  std::vector<Tok> want = {
      Tok::KwTrue, Tok::KwFalse,    Tok::KwNone, Tok::KwAnd,      Tok::KwOr,
      Tok::KwNot,  Tok::Identifier, Tok::Dot,    Tok::Identifier, Tok::IntLit,
      Tok::Dot,    Tok::Identifier, Tok::Eof};
  EXPECT_EQ(k, want);
}

TEST(Lexer, BadCharactersAreReportedAndSkipped) {
  SourceFile file("t.tile", "a $ b\n  @c 12abc \"open");
  DiagnosticEngine diags(&file);
  std::vector<Tok> k = kinds(file.getText(), diags);
  EXPECT_EQ(diags.getNumErrors(), 4u);
  EXPECT_EQ(diags.str(), "t.tile:1:3: error: unexpected character '$'\n"
                         "a $ b\n"
                         "  ^\n"
                         "t.tile:2:3: error: unexpected character '@'\n"
                         "  @c 12abc \"open\n"
                         "  ^\n"
                         "t.tile:2:6: error: invalid numeric literal '12abc'\n"
                         "  @c 12abc \"open\n"
                         "     ^\n"
                         "t.tile:2:12: error: unterminated string literal\n"
                         "  @c 12abc \"open\n"
                         "           ^\n");
  EXPECT_EQ(k.back(), Tok::Eof);
}

TEST(Lexer, IntegerTooLarge) {
  DiagnosticEngine diags;
  kinds("99999999999999999999", diags);
  EXPECT_EQ(diags.getNumErrors(), 1u);
  EXPECT_TRUE(contains(diags.str(), "is too large"));
}

//===----------------------------------------------------------------------===//
// Parser and dumpAST
//===----------------------------------------------------------------------===//

TEST(Parser, DumpAST) {
  std::string dump;
  std::string d = parse("kernel k(x: *f32, B: constexpr = 4, T: dtype) {\n"
                        "  y = -x[:, None] + 2 * 3.0;\n"
                        "  for i in range(B) { y += load(x, mask=m); }\n"
                        "  if a < b and not c { } else if d { } else { }\n"
                        "}\n"
                        "fn h(a) { return a.to(f16); }\n",
                        &dump);
  EXPECT_EQ(d, "");
  EXPECT_EQ(dump, R"(Module
  Kernel k <1:8>
    Param x: *f32 <1:10>
    Param B: constexpr <1:19>
      Default
        Int 4 <1:34>
    Param T: dtype <1:37>
    Block <1:47>
      Assign y <2:3>
        Binary + <2:19>
          Unary - <2:7>
            Index <2:9>
              Name x <2:8>
              Slice <2:10>
              None <2:13>
          Binary * <2:23>
            Int 2 <2:21>
            Float 3.0 <2:25>
      For i <3:3>
        End
          Name B <3:18>
        Block <3:21>
          Assign y += <3:23>
            Call <3:28>
              Name load <3:28>
              Name x <3:33>
              Keyword mask <3:36>
                Name m <3:41>
      If <4:3>
        Binary and <4:12>
          Binary < <4:8>
            Name a <4:6>
            Name b <4:10>
          Unary not <4:16>
            Name c <4:20>
        Block <4:22>
        Else
          Block <4:31>
            If <4:31>
              Name d <4:34>
              Block <4:36>
              Else
                Block <4:45>
  Fn h <6:4>
    Param a <6:6>
    Block <6:9>
      Return <6:11>
        Call <6:20>
          Attr to <6:20>
            Name a <6:18>
          Name f16 <6:23>
)");
}

TEST(Parser, Precedence) {
  std::string dump;
  parse("fn f() { x = 1 | 2 ^ 3 & 4 << 5 + 6 * -7; }", &dump);
  // | binds loosest, unary minus tightest.
  EXPECT_TRUE(contains(dump, "      Assign x <1:10>\n"
                             "        Binary | <1:16>\n"
                             "          Int 1 <1:14>\n"
                             "          Binary ^ <1:20>\n"))
      << dump;
  EXPECT_TRUE(contains(dump, "Binary * <1:37>\n"
                             "                    Int 6 <1:35>\n"
                             "                    Unary - <1:39>\n"))
      << dump;
}

TEST(Parser, SeveralErrorsInOneRun) {
  std::string d = parse("kernel k(x: *f32) {\n"
                        "    a = 1 +;\n"
                        "    b = (2, 3;\n"
                        "    d = a < b < c;\n"
                        "    x + 1 = 3;\n"
                        "    ok = 1;\n"
                        "}\n");
  EXPECT_EQ(d, "t.tile:2:12: error: expected an expression, found ';'\n"
               "    a = 1 +;\n"
               "           ^\n"
               "t.tile:3:14: error: expected ')' to close the parenthesis, "
               "found ';'\n"
               "    b = (2, 3;\n"
               "             ^\n"
               "t.tile:4:15: error: comparisons cannot be chained; combine "
               "them with 'and'\n"
               "    d = a < b < c;\n"
               "              ^\n"
               "t.tile:5:11: error: only a variable name can be assigned to\n"
               "    x + 1 = 3;\n"
               "          ^\n");
}

TEST(Parser, MissingSemicolonAndBrace) {
  std::string d = parse("kernel k(n) {\n  e = 1\n  f = 2;\n"
                        "  for i in range(0, n { a = 1; }\n"
                        "kernel j() { }\n");
  EXPECT_TRUE(contains(d, "t.tile:1:10: error: kernel parameter 'n' needs a "
                          "type (e.g. ': i32')"))
      << d;
  EXPECT_TRUE(contains(d, "t.tile:2:8: error: expected ';' after assignment, "
                          "found identifier"))
      << d;
  EXPECT_TRUE(contains(d, "t.tile:4:23: error: expected ')' after the range "
                          "bounds, found '{'"))
      << d;
  EXPECT_TRUE(contains(d, "t.tile:5:1: error: expected '}' before 'kernel'"))
      << d;
  EXPECT_TRUE(contains(d, "t.tile:1:13: note: to match this '{'")) << d;
}

TEST(Parser, HelperParamsAndDefaults) {
  std::string d = parse("fn h(a: i32) { }\nkernel k(x: f32 = 1) { }\n");
  EXPECT_TRUE(contains(d, "t.tile:1:9: error: helper parameters take no "
                          "type"))
      << d;
  EXPECT_TRUE(contains(d, "t.tile:2:17: error: only constexpr and dtype "
                          "parameters may have a default value"))
      << d;
}

TEST(Parser, DeepNestingIsCapped) {
  std::string deep = "kernel k() { a = " + std::string(5000, '(') + "1" +
                     std::string(5000, ')') +
                     "; b = " + std::string(100000, '-') + "1; }";
  std::string d = parse(deep);
  EXPECT_TRUE(contains(d, "error: nesting too deep (limit 256)")) << d;
  std::string blocks = "kernel k() {";
  for (int i = 0; i < 2000; ++i)
    blocks += "if a {";
  std::string d2 = parse(blocks);
  EXPECT_TRUE(contains(d2, "nesting too deep")) << d2;
}

/// `a = 1 + 1 + ... ;` with `terms` terms.
std::string chain(int terms, const std::string &tail = ";") {
  std::string text = "kernel k(x: *f32) { a = 1";
  for (int i = 1; i < terms; ++i)
    text += " + 1";
  return text + tail + " store(x, a); }";
}

TEST(Parser, LongOperatorChainsAreCapped) {
  // Chains loop in the parser but nest in the tree, which MLIRGen, the dump
  // and the destructor walk recursively (these crashed at 30,000 terms).
  // The 1024th '+' (column 27 + 4 * 1023) makes the tree 1025 high.
  std::string d = parse(chain(30000));
  EXPECT_TRUE(contains(d, "t.tile:1:4119: error: expression too deep: 1025 "
                          "nested operations (limit 1024)"))
      << d.substr(0, 300);
  std::string dump;
  d = parse(chain(1000000, " )"), &dump); // and a syntax error after it
  EXPECT_TRUE(contains(d, "expression too deep")) << d.substr(0, 300);
  std::string casts = "kernel k(x: *f32) { a = 1.0";
  for (int i = 0; i < 100000; ++i)
    casts += ".to(f32)";
  d = parse(casts + "; store(x, a); }");
  EXPECT_TRUE(contains(d, "expression too deep")) << d.substr(0, 300);
  // Within the cap the chain compiles.
  GenResult r = gen(chain(1000));
  EXPECT_EQ(r.diags, "");
  EXPECT_TRUE(contains(r.ir, "tile.store")) << r.ir.substr(0, 300);
}

TEST(Parser, TruncatedAndMutatedInputsDoNotCrash) {
  std::string src = readExample("matmul.tile");
  ASSERT_FALSE(src.empty());
  mlir::MLIRContext ctx;
  unsigned seed = 12345;
  for (int i = 0; i < 200; ++i) {
    std::string text = src.substr(0, (src.size() * i) / 200);
    if (i % 2) { // also mutate a few bytes
      for (int k = 0; k < 3 && !text.empty(); ++k) {
        seed = seed * 1103515245 + 12345;
        text[(seed >> 8) % text.size()] =
            "(){}[];,.:=+-*x0\"#\n\xff"[seed % 21];
      }
    }
    SourceFile file("f.tile", text);
    DiagnosticEngine diags(&file);
    auto module = parseSource(file, diags);
    std::string dump;
    llvm::raw_string_ostream os(dump);
    dumpAST(*module, os);
    if (!diags.hasErrors())
      (void)mlirGen(ctx, *module, "", {}, diags);
    (void)diags.str();
  }
}

//===----------------------------------------------------------------------===//
// MLIRGen
//===----------------------------------------------------------------------===//

TEST(MLIRGen, SpecValues) {
  SpecValue v;
  ASSERT_TRUE(parseSpecValue("128", false, v));
  EXPECT_EQ(v.kind, SpecValue::Int);
  EXPECT_EQ(v.i, 128);
  ASSERT_TRUE(parseSpecValue("-1", false, v));
  EXPECT_EQ(v.i, -1);
  ASSERT_TRUE(parseSpecValue("1e-3", false, v));
  EXPECT_EQ(v.kind, SpecValue::Float);
  EXPECT_DOUBLE_EQ(v.f, 1e-3);
  ASSERT_TRUE(parseSpecValue("false", false, v));
  EXPECT_EQ(v.kind, SpecValue::Bool);
  EXPECT_EQ(v.i, 0);
  ASSERT_TRUE(parseSpecValue("fp8e4m3", true, v));
  EXPECT_EQ(v.dtype, "fp8e4m3");
  EXPECT_FALSE(parseSpecValue("f64", true, v));
  EXPECT_FALSE(parseSpecValue("abc", false, v));
}

TEST(MLIRGen, VectorAdd) {
  GenResult r = gen(readExample("vector_add.tile"), {{"BLOCK", "256"}});
  ASSERT_EQ(r.diags, "");
  EXPECT_TRUE(contains(r.ir, "func.func @vector_add(%arg0: !tile.ptr<f32>"))
      << r.ir;
  EXPECT_TRUE(contains(r.ir, "{tile.constexpr = 256 : i32}")) << r.ir;
  EXPECT_TRUE(contains(r.ir, "attributes {tile.kernel}")) << r.ir;
  EXPECT_TRUE(contains(r.ir, "tile.make_range 0, 256 : tensor<256xi32>"));
  EXPECT_TRUE(contains(r.ir, "tile.addptr")) << r.ir;
  EXPECT_TRUE(contains(r.ir, "tile.load")) << r.ir;
  EXPECT_TRUE(contains(r.ir, "tile.store")) << r.ir;
  EXPECT_TRUE(contains(r.ir, "arith.addf")) << r.ir;

  GenResult h = gen(readExample("vector_add.tile"), {{"T", "f16"}});
  ASSERT_EQ(h.diags, "");
  EXPECT_TRUE(contains(h.ir, "!tile.ptr<f16>")) << h.ir;
  EXPECT_TRUE(contains(h.ir, "tensor<1024xf16>")) << h.ir;
}

TEST(MLIRGen, SoftmaxAndMatmulExamples) {
  GenResult s = gen(readExample("softmax.tile"), {{"T", "bf16"}});
  ASSERT_EQ(s.diags, "");
  EXPECT_TRUE(contains(s.ir, "tile.reduce max")) << s.ir;
  EXPECT_TRUE(contains(s.ir, "tile.reduce sum")) << s.ir;
  EXPECT_TRUE(contains(s.ir, "math.exp")) << s.ir;
  EXPECT_TRUE(contains(s.ir, "arith.truncf")) << s.ir;
  for (const char *t : {"f16", "bf16", "f32"}) {
    GenResult m = gen(readExample("matmul.tile"), {{"T", t}});
    ASSERT_EQ(m.diags, "") << t;
    EXPECT_TRUE(contains(m.ir, "scf.for")) << m.ir;
    EXPECT_TRUE(contains(m.ir, "tile.dot")) << m.ir;
    EXPECT_TRUE(contains(m.ir, "-> tensor<64x64xf32>")) << m.ir;
    EXPECT_TRUE(contains(m.ir, ": i32 {")) << m.ir; // i32 induction var
  }
  GenResult bad = gen(readExample("matmul.tile"), {{"BLOCK_K", "8"}});
  EXPECT_TRUE(contains(bad.diags, "error: static assertion failed: "
                                  "tensor-core dot needs BLOCK_K >= 16"))
      << bad.diags;
}

TEST(MLIRGen, HelpersAreMonomorphized) {
  GenResult r = gen("fn add(a, b) { return a + b; }\n"
                    "fn ramp(N) { return arange(0, N); }\n"
                    "kernel k(x: *f32, y: i32) {\n"
                    "  v = add(1.0, load(x));\n"
                    "  w = add(y, y);\n"
                    "  store(x + ramp(16), v);\n"
                    "}\n");
  ASSERT_EQ(r.diags, "");
  EXPECT_TRUE(contains(r.ir, "func.func private @add__cf1_f32")) << r.ir;
  EXPECT_TRUE(contains(r.ir, "func.func private @add__i32_i32")) << r.ir;
  EXPECT_TRUE(contains(r.ir, "func.func private @ramp__c16")) << r.ir;
  EXPECT_TRUE(contains(r.ir, "call @add__i32_i32")) << r.ir;
}

TEST(MLIRGen, IfMergesVariables) {
  GenResult r = gen("kernel k(x: *f32, n: i32, F: constexpr = True) {\n"
                    "  v = 0.0;\n"
                    "  if n > 0 { v = load(x); } else { v = 1.0; }\n"
                    "  if F { w = 1; } else { w = zeros((3,), f32); }\n"
                    "  store(x, v + w);\n"
                    "}\n");
  ASSERT_EQ(r.diags, "");
  EXPECT_TRUE(contains(r.ir, "= scf.if")) << r.ir;
  EXPECT_TRUE(contains(r.ir, "scf.yield")) << r.ir;
}

TEST(MLIRGen, TensorRankIsCapped) {
  // A rank of 1,001 (from `None` indices or a shape tuple) took minutes and
  // gigabytes; 8 dimensions is the cap.
  std::string nones = "kernel k(x: *f32) { a = zeros((2,), f32)[:";
  for (int i = 0; i < 1000; ++i)
    nones += ", None";
  GenResult r = gen(nones + "]; }");
  EXPECT_TRUE(contains(r.diags, "t.tile:1:87: error: a tensor has at most 8 "
                                "dimensions; this 'None' adds one more"))
      << r.diags.substr(0, 300);
  std::string ones = "kernel k(x: *f32) { a = zeros((1";
  for (int i = 0; i < 1000; ++i)
    ones += ", 1";
  r = gen(ones + "), f32); }");
  EXPECT_TRUE(contains(r.diags, "error: a tensor has at most 8 dimensions, "
                                "shape has 1001"))
      << r.diags.substr(0, 300);
  // Eight are fine.
  r = gen("kernel k(x: *f32) { a = zeros((2,), f32)[:, None, None, None, "
          "None, None, None, None]; }");
  EXPECT_EQ(r.diags, "");
}

TEST(MLIRGen, SemanticErrors) {
  GenResult r = gen("kernel k(x: *f32, n: i32, B: constexpr) {\n"
                    "  a = arange(0, 12);\n"
                    "  b = arange(0, n);\n"
                    "  c = arange(0, 16) + arange(0, 32);\n"
                    "  d = x * x;\n"
                    "  e = load(n);\n"
                    "  f = undefined_thing + 1;\n"
                    "  g = sum(zeros((4, 4), f32), 2);\n"
                    "  h = n.to(f64);\n"
                    "  if n { }\n"
                    "  i = load(x, mask=n < 1, bogus=1);\n"
                    "  j = dot(zeros((16, 32), f16), zeros((16, 16), f16));\n"
                    "  program_id();\n"
                    "}\n");
  const char *want[] = {
      "t.tile:1:27: error: missing value for constexpr parameter 'B' (pass "
      "-D B=...)",
      "t.tile:2:7: error: arange length 12 is not a power of two",
      "t.tile:3:17: error: arange bound must be a compile-time constant "
      "(constexpr), got i32",
      "t.tile:4:21: error: cannot broadcast shapes [16] and [32]",
      "t.tile:5:9: error: invalid operands to binary '*' (*f32 and *f32)",
      "t.tile:6:12: error: load() expects pointer(s), got i32",
      "t.tile:7:7: error: use of undefined name 'undefined_thing'",
      "t.tile:8:31: error: axis 2 is out of range for a tensor of rank 2",
      "t.tile:9:12: error: unknown type 'f64'",
      "t.tile:10:6: error: if condition must be a scalar i1, got i32",
      "t.tile:11:27: error: load() got an unexpected keyword argument 'bogus'",
      "t.tile:12:7: error: dot() inner dimensions differ: f16[16, 32] x "
      "f16[16, 16]",
      "t.tile:13:3: error: program_id() missing required argument 'axis'",
  };
  // The missing constexpr stops generation before the body: check it alone,
  // then the body with B given.
  EXPECT_TRUE(contains(r.diags, want[0])) << r.diags;
  r = gen("kernel k(x: *f32, n: i32, B: constexpr) {\n"
          "  a = arange(0, 12);\n"
          "  b = arange(0, n);\n"
          "  c = arange(0, 16) + arange(0, 32);\n"
          "  d = x * x;\n"
          "  e = load(n);\n"
          "  f = undefined_thing + 1;\n"
          "  g = sum(zeros((4, 4), f32), 2);\n"
          "  h = n.to(f64);\n"
          "  if n { }\n"
          "  i = load(x, mask=n < 1, bogus=1);\n"
          "  j = dot(zeros((16, 32), f16), zeros((16, 16), f16));\n"
          "  program_id();\n"
          "}\n",
          {{"B", "4"}});
  for (size_t k = 1; k < sizeof(want) / sizeof(want[0]); ++k)
    EXPECT_TRUE(contains(r.diags, want[k])) << want[k] << "\n" << r.diags;
  EXPECT_EQ(r.ir, "");
}

TEST(MLIRGen, LoopCarriedTypeChange) {
  GenResult r = gen("kernel k(x: *f32, n: i32) {\n"
                    "  acc = zeros((16,), f32);\n"
                    "  for i in range(n) {\n"
                    "    acc = acc.to(f16);\n"
                    "  }\n"
                    "  store(x + arange(0, 16), acc);\n"
                    "}\n");
  EXPECT_TRUE(contains(r.diags, "t.tile:4:5: error: loop-carried variable "
                                "'acc' changes type from f32[16] to f16[16] "
                                "inside the loop"))
      << r.diags;
}

TEST(MLIRGen, SpecializationErrors) {
  GenResult r = gen("kernel k(x: *T, B: constexpr, T: dtype = f32) { }\n",
                    {{"B", "abc"}, {"Q", "1"}, {"T", "f64"}});
  EXPECT_TRUE(contains(r.diags, "error: unknown specialization value 'Q'"))
      << r.diags;
  EXPECT_TRUE(contains(r.diags, "t.tile:1:17: error: invalid value 'abc' for "
                                "constexpr parameter 'B'"))
      << r.diags;
  EXPECT_TRUE(contains(r.diags, "t.tile:1:31: error: invalid value 'f64' for "
                                "dtype parameter 'T'"))
      << r.diags;
  GenResult n = gen("kernel k() { }\n", {}, "nope");
  EXPECT_TRUE(contains(n.diags, "error: no kernel named 'nope'")) << n.diags;
}

TEST(MLIRGen, StaticForAndConstexprIf) {
  GenResult r = gen("kernel k(x: *f32, N: constexpr = 3) {\n"
                    "  s = 0;\n"
                    "  static_for i in range(0, N) { s = s + i; }\n"
                    "  static_assert(s == 3, \"sum\");\n"
                    "  if N > 100 { bogus = arange(0, 3); }\n"
                    "  store(x, s);\n"
                    "}\n");
  ASSERT_EQ(r.diags, "");
  EXPECT_TRUE(contains(r.ir, "arith.constant 3.000000e+00 : f32")) << r.ir;
}
