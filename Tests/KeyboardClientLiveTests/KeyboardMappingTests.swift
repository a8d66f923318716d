import KeyboardClient
import Testing

@testable import KeyboardClientLive

struct KeyboardMappingTests {
  static let table = """
    There are 7 KeySyms per KeyCode; KeyCodes range from 8 to 255.

        KeyCode\tKeysym (Keysym)\t...
        Value  \tValue   (Name) \t...

          8    \t
         26    \t0x0065 (e)\t0x0045 (E)\t0x0065 (e)\t0x0045 (E)\t
         38    \t0x0061 (a)\t0x0041 (A)\t0x0061 (a)\t0x0041 (A)\t
         93    \t
         97    \t0x00e9 (eacute)\t0x00c9 (Eacute)\t0x00e9 (eacute)\t0x00c9 (Eacute)\t
        103    \t0x1002014 (U2014)\t0x0000 (NoSymbol)\t0x1002014 (U2014)\t
        120    \t
    """

  @Test func readsXmodmapsTable() {
    let mapping = KeyboardMapping(xmodmapTable: Self.table)
    #expect(mapping.freeKeycodes == [8, 93, 120])
    #expect(mapping.keysyms[103] == [0x100_2014, 0x100_2014])
    #expect(mapping.contains(0xE9))
    #expect(mapping.keycode(97, carries: 0xC9))
    #expect(!mapping.contains(0xDF))
  }

  @Test func keysymsAreLatin1CodesOrUnicodeKeysyms() {
    #expect(KeyboardMapping.keysym(for: "a") == 0x61)
    #expect(KeyboardMapping.keysym(for: "é") == 0xE9)
    #expect(KeyboardMapping.keysym(for: "€") == 0x100_20AC)
    #expect(KeyboardMapping.xmodmapName(0xE9) == "U00E9")
    #expect(KeyboardMapping.xmodmapName(0x100_2014) == "U2014")
    #expect(KeyboardMapping.xmodmapName(0x101_F600) == "U1F600")
  }

  @Test func bindsOnlyWhatTheMapLacks() throws {
    let mapping = KeyboardMapping(xmodmapTable: Self.table)
    let plan = try BindingPlan(text: "aé—ß\ne", mapping: mapping, bindings: [:])
    #expect(plan.steps == [.bind([8: 0xDF]), .type("aé—ß\ne")])
    #expect(plan.bindings == [8: 0xDF])
  }

  @Test func reusesItsSlotsWhenTheTextNeedsMoreThanAreFree() throws {
    let mapping = KeyboardMapping(keysyms: [10: [], 11: [], 38: [0x61]])
    let plan = try BindingPlan(text: "αβaγα", mapping: mapping, bindings: [:])
    let (alpha, beta, gamma): (UInt32, UInt32, UInt32) = (0x100_03B1, 0x100_03B2, 0x100_03B3)
    #expect(
      plan.steps == [
        .bind([10: alpha, 11: beta]), .type("αβa"),
        .bind([11: gamma]), .type("γα"),
      ])
    #expect(plan.bindings == [10: alpha, 11: gamma])
  }

  @Test func keepsBindingsThatStillHold() throws {
    let mapping = KeyboardMapping(keysyms: [10: [0xDF], 11: [], 38: [0x61]])
    let plan = try BindingPlan(text: "aß", mapping: mapping, bindings: [10: 0xDF])
    #expect(plan.steps == [.type("aß")])
  }

  @Test func withoutAFreeKeycodeAMissingCharacterFails() {
    let mapping = KeyboardMapping(keysyms: [38: [0x61]])
    #expect(throws: KeyboardClientFailure.self) {
      try BindingPlan(text: "aé", mapping: mapping, bindings: [:])
    }
  }

  @Test func xdotoolTypesEachLineFromStandardInputAndPressesReturnBetweenThem() {
    let type = ["type", "--delay", "1", "--file", "-"]
    #expect(
      XdotoolTyper.invocations(typing: "-a b\nc\t\n\nd") == [
        .init(arguments: type, text: "-a b", keys: 4),
        .init(arguments: ["key", "--delay", "1", "Return"], text: nil, keys: 1),
        .init(arguments: type, text: "c", keys: 1),
        .init(arguments: ["key", "--delay", "1", "Tab", "Return", "Return"], text: nil, keys: 3),
        .init(arguments: type, text: "d", keys: 1),
      ])
    // The text is never an argument.
    for invocation in XdotoolTyper.invocations(typing: "private words\nmore") {
      #expect(!invocation.arguments.contains { $0.contains("private") || $0.contains("more") })
    }
  }

  @Test func wtypeTypesEachLineFromStandardInputWithItsReturnInTheSameRun() {
    let settle = WtypeTyper.settle
    #expect(
      WtypeTyper.invocations(typing: "--x\ny\t\nz") == [
        .init(arguments: ["-s", settle, "-", "-k", "Return"], text: "--x", keys: 4),
        .init(arguments: ["-s", settle, "-", "-k", "Tab", "-k", "Return"], text: "y", keys: 3),
        .init(arguments: ["-s", settle, "-"], text: "z", keys: 1),
      ])
    #expect(
      WtypeTyper.invocations(typing: "\ne\u{301}\u{7}") == [
        .init(arguments: ["-s", settle, "-k", "Return"], text: nil, keys: 1),
        .init(arguments: ["-s", settle, "-"], text: "é", keys: 1),
      ])
    #expect(WtypeTyper.invocations(typing: "\u{7}").isEmpty)
  }
}
