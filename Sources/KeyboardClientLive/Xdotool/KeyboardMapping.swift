import KeyboardClient

/// The X server's core keyboard mapping as `xmodmap -pk` prints it: each keycode's keysyms.
///
/// xdotool types a character only when some keycode carries its keysym: with a US map it
/// silently drops é ü ß ’ — €, and after `setxkbmap de` it drops é and ï (reachable only through
/// dead keys). So characters outside the map are bound first to keycodes that carry nothing.
struct KeyboardMapping: Equatable, Sendable {
  /// Keysyms per keycode, `NoSymbol` left out; keycodes without any are present, empty.
  var keysyms: [Int: [UInt32]]

  /// Reads `xmodmap -pk`'s table: lines like `   38    	0x0061 (a)	0x0041 (A)	…`.
  init(xmodmapTable: String) {
    var keysyms: [Int: [UInt32]] = [:]
    for line in xmodmapTable.split(whereSeparator: \.isNewline) {
      let fields = line.split(whereSeparator: \.isWhitespace)
      guard let first = fields.first, let keycode = Int(first) else { continue }
      keysyms[keycode] = fields.dropFirst().compactMap { field in
        guard field.hasPrefix("0x"), let value = UInt32(field.dropFirst(2), radix: 16), value != 0
        else { return nil }
        return value
      }
    }
    self.keysyms = keysyms
  }

  init(keysyms: [Int: [UInt32]]) {
    self.keysyms = keysyms
  }

  /// Keycodes that carry no keysym, lowest first: where characters can be bound.
  var freeKeycodes: [Int] {
    keysyms.filter(\.value.isEmpty).keys.sorted()
  }

  /// Whether some keycode carries `keysym`.
  func contains(_ keysym: UInt32) -> Bool {
    keysyms.values.contains { $0.contains(keysym) }
  }

  /// Whether `keycode` carries `keysym`.
  func keycode(_ keycode: Int, carries keysym: UInt32) -> Bool {
    keysyms[keycode]?.contains(keysym) ?? false
  }

  /// The keysym that types `scalar`: its code for Latin-1 (as X defines them), the Unicode
  /// keysym (0x01000000 + code) for the rest. `xmodmap`'s `U00E9` spelling gives the same values.
  static func keysym(for scalar: Unicode.Scalar) -> UInt32 {
    switch scalar.value {
    case 0x20...0x7E, 0xA0...0xFF: scalar.value
    default: 0x0100_0000 + scalar.value
    }
  }

  /// `xmodmap`'s spelling of `keysym` for a binding: `U00E9`.
  static func xmodmapName(_ keysym: UInt32) -> String {
    let code = keysym >= 0x0100_0000 ? keysym - 0x0100_0000 : keysym
    let hex = String(code, radix: 16, uppercase: true)
    return "U" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
  }
}

/// One step of typing a text through xdotool: bind keysyms to keycodes, or type a run of text
/// whose characters are all reachable by then.
enum XdotoolStep: Equatable, Sendable {
  /// Bind each keycode to the keysym (`xmodmap -e "keycode N = U00E9"`).
  case bind([Int: UInt32])
  /// Type this text (`"\n"` and `"\t"` inside it press Return and Tab).
  case type(String)
}

/// Which characters to bind where, so that a text of any length and any number of distinct
/// characters types through the keycodes that are free.
struct BindingPlan: Equatable, Sendable {
  /// The steps, in order.
  var steps: [XdotoolStep]
  /// The keycodes this typer has bound once the steps ran, and to what.
  var bindings: [Int: UInt32]

  /// Plans `text` against `mapping`, given the keycodes this typer bound earlier (`bindings`,
  /// already checked to be still in place). When the text needs more characters than there are
  /// slots (free keycodes and its own), it is cut into runs and the slots rebound between them;
  /// a keystroke already sent is read with the mapping it was sent under, so rebinding afterwards
  /// is safe.
  ///
  /// - Throws: ``KeyboardClientFailure/failed(tool:message:)`` when a character is missing and no
  ///   keycode is free.
  init(
    text: String, mapping: KeyboardMapping, bindings: [Int: UInt32]
  ) throws(KeyboardClientFailure) {
    // Keysyms the layout itself offers (not those this typer bound).
    let layout = Set(
      mapping.keysyms.flatMap { keycode, keysyms in bindings[keycode] == nil ? keysyms : [] })
    let slots = (mapping.freeKeycodes + bindings.keys).sorted()

    var runs: [(text: String, needs: Set<UInt32>)] = []
    var current = ""
    var needs: Set<UInt32> = []
    for scalar in text.unicodeScalars {
      if scalar == "\n" || scalar == "\t" {
        current.unicodeScalars.append(scalar)
        continue
      }
      let keysym = KeyboardMapping.keysym(for: scalar)
      if !layout.contains(keysym) && !needs.contains(keysym) {
        guard !slots.isEmpty else {
          throw .failed(
            tool: "xdotool",
            message: "no free keycode to bind “\(Character(scalar))” to: the keyboard map is full")
        }
        if needs.count == slots.count {
          runs.append((current, needs))
          current = ""
          needs = []
        }
        needs.insert(keysym)
      }
      current.unicodeScalars.append(scalar)
    }
    if !current.isEmpty { runs.append((current, needs)) }

    var bound = bindings
    var steps: [XdotoolStep] = []
    for run in runs {
      var changes: [Int: UInt32] = [:]
      let missing = run.needs.filter { keysym in !bound.values.contains(keysym) }.sorted()
      // Slots to reuse: empty ones first, then ours holding what this run does not need.
      var reusable =
        slots.filter { bound[$0] == nil }
        + slots.filter { bound[$0].map { !run.needs.contains($0) } ?? false }
      for keysym in missing {
        let keycode = reusable.removeFirst()
        bound[keycode] = keysym
        changes[keycode] = keysym
      }
      if !changes.isEmpty { steps.append(.bind(changes)) }
      steps.append(.type(run.text))
    }
    self.steps = steps
    self.bindings = bound
  }
}
