import Foundation
import Synchronization

/// Phrases Moonshine's greedy decoder favours (contextual biasing, "hotwords"): the names of
/// lamps, rooms, people and playlists that a general model knows least.
///
/// The phrases are kept as a prefix tree over their spellings: each starts a word (a space, then
/// the phrase with single spaces between its words), and letters are compared without regard to
/// ASCII case, so `kallax` favours `Kallax` as well. At every step the decoder adds ``boost`` to
/// the score (logit) of each token whose bytes walk on along the tree from where the text so far
/// stands: a token that starts a phrase at a word boundary, or one that continues the phrase
/// being spelled. The spelling is the model's own choice of tokens: the tree is over bytes, so
/// any of the ways the vocabulary can spell a phrase is favoured.
///
/// The bonus is taken back when a phrase is abandoned: when the text leaves the tree before a
/// phrase is complete, and the bonus changed a choice on the way (the model alone would have
/// chosen another token), decoding returns to the first such choice and makes it again without
/// that token's bonus (see ``MoonshineModel/transcribe(_:prefix:hotwords:)``). So the bonus
/// leaves either a whole phrase or nothing behind, and speech that says none of the phrases
/// decodes as it does without them, but for ties the bonus broke towards a whole phrase.
///
/// Compile a list with ``MoonshineModel/hotwords(_:boost:)``; an empty list favours nothing,
/// and decoding then is exactly the plain greedy decoding.
public struct MoonshineHotwords: Sendable {
  /// The boost used when none is given: what is added to a favoured token's logit.
  ///
  /// Chosen on espeak-ng commands with rare names (`Benchmarks/hotwords`): high enough that the
  /// names come out right, low enough that 50 unrelated hotwords leave read speech unchanged.
  public static let defaultBoost: Float = 5
  /// The boosts accepted.
  public static let boosts: ClosedRange<Float> = 0...20
  /// The most take-backs one transcription makes; after them, it decodes without bonus.
  static let maximumTakeBacks = 16
  /// How far below the model's own choices a phrase's tokens may score in all, as a multiple of
  /// the boost, before the phrase is taken back: the bonus helps each token, but a phrase the
  /// model finds unlikely as a whole (names forced on unrelated speech) does not stay. Chosen on
  /// the espeak-ng commands of `Benchmarks/hotwords`: 1 gave 10 of 33 names and no name
  /// inserted, 1.5 gave 12 and one name heard for a similar one, 2 gave 13 and three
  /// (a name repeated over a whole command among them).
  static let budgetFactor: Float = 1.5

  /// The phrases, as given (blank ones left out).
  public let phrases: [String]
  /// What is added to a favoured token's logit.
  public let boost: Float
  /// The prefix tree; node 0 is the root, where no phrase has started.
  let nodes: [Node]
  /// The vocabulary the tree was compiled against.
  let vocabulary: HotwordVocabulary

  /// A node of the tree: a position in one or more phrases' spellings.
  struct Node: Sendable {
    var children: [UInt8: Int32] = [:]
    /// Whether a phrase ends here.
    var isEnd = false
    /// How many bytes of a phrase's spelling lead here (its leading space among them).
    var depth: Int32 = 0
    /// The tokens whose bytes walk on from here, and the node each one reaches.
    var steps: [Step] = []
    /// `steps` by token.
    var targets: [Int32: Int32] = [:]
  }

  /// A token that walks the tree from one node to `node`.
  struct Step: Equatable, Sendable {
    var token: Int32
    var node: Int32
  }

  /// Whether the list favours nothing.
  public var isEmpty: Bool { nodes.count <= 1 }

  /// Compiles `phrases` against a vocabulary.
  init(phrases: [String], boost: Float, vocabulary: HotwordVocabulary) {
    self.phrases = phrases.filter { !Self.spelling(of: $0).isEmpty }
    self.boost = boost
    self.vocabulary = vocabulary
    var nodes = [Node()]
    for phrase in self.phrases {
      var node = 0
      for byte in Self.spelling(of: phrase) {
        if let child = nodes[node].children[byte] {
          node = Int(child)
        } else {
          nodes.append(Node(depth: nodes[node].depth + 1))
          nodes[node].children[byte] = Int32(nodes.count - 1)
          node = nodes.count - 1
        }
      }
      nodes[node].isEnd = true
    }
    // Every node's tokens: each path down from it, up to the longest token, that spells a
    // token with a letter (a bare space favours nothing).
    for start in nodes.indices {
      var steps: [Step] = []
      var stack: [(node: Int, bytes: [UInt8])] = [(start, [])]
      while let (node, bytes) = stack.popLast() {
        if !bytes.isEmpty, bytes.contains(where: { $0 != 0x20 }) {
          for token in vocabulary.tokens[bytes] ?? [] {
            steps.append(Step(token: token, node: Int32(node)))
          }
        }
        guard bytes.count < vocabulary.longest else { continue }
        for (byte, child) in nodes[node].children {
          stack.append((Int(child), bytes + [byte]))
        }
      }
      steps.sort { $0.token < $1.token }
      nodes[start].steps = steps
      nodes[start].targets = Dictionary(
        steps.map { ($0.token, $0.node) }, uniquingKeysWith: { first, _ in first })
    }
    self.nodes = nodes
  }

  /// The bytes the tree holds for a phrase: a space, its words joined by single spaces, ASCII
  /// letters in lower case; empty for a blank phrase.
  static func spelling(of phrase: String) -> [UInt8] {
    let words = phrase.split(whereSeparator: \.isWhitespace)
    guard !words.isEmpty else { return [] }
    return Array((" " + words.joined(separator: " ")).utf8).map(HotwordVocabulary.folded)
  }
}

/// A vocabulary as the hotword tree needs it: each token's bytes (ASCII letters in lower case)
/// to the tokens that spell them. Built once per model.
final class HotwordVocabulary: Sendable {
  let tokens: [[UInt8]: [Int32]]
  /// The most bytes a token has.
  let longest: Int
  /// Whether each token, by id, starts with a letter or digit (or a byte of a UTF-8 sequence):
  /// after a phrase, such a token makes it part of a longer word.
  let continuesWord: [Bool]
  /// Whether each token, by id, goes on with the word being written: it starts with a letter or
  /// digit (``continuesWord``), a hyphen or an apostrophe ("Coca" then "-meal").
  let goesOnWithWord: [Bool]

  /// Indexes `pieces` (each token's bytes, spaces as spaces) from `first` on: the tokens before
  /// it are special or single raw bytes, which favour nothing.
  init(pieces: [[UInt8]], first: Int) {
    var tokens: [[UInt8]: [Int32]] = [:]
    var longest = 0
    for id in first..<max(first, pieces.count) where !pieces[id].isEmpty {
      let key = pieces[id].map(Self.folded)
      tokens[key, default: []].append(Int32(id))
      longest = max(longest, key.count)
    }
    self.tokens = tokens
    self.longest = longest
    let continuesWord = pieces.map { piece in
      guard let first = piece.first else { return false }
      return first >= 0x80 || (0x30...0x39).contains(first)
        || (0x61...0x7A).contains(Self.folded(first))
    }
    self.continuesWord = continuesWord
    goesOnWithWord = zip(pieces, continuesWord).map { piece, continues in
      continues || piece.first == UInt8(ascii: "-") || piece.first == UInt8(ascii: "'")
    }
  }

  /// Whether `token` goes on with the word being written (see ``goesOnWithWord``).
  func goesOnWithWord(_ token: Int32) -> Bool {
    token >= 0 && Int(token) < goesOnWithWord.count && goesOnWithWord[Int(token)]
  }

  /// Whether `token` starts with a letter or digit (see ``continuesWord``).
  func continuesWord(_ token: Int32) -> Bool {
    token >= 0 && Int(token) < continuesWord.count && continuesWord[Int(token)]
  }

  /// A byte with ASCII upper-case letters in lower case.
  static func folded(_ byte: UInt8) -> UInt8 {
    (0x41...0x5A).contains(byte) ? byte + 0x20 : byte
  }
}

/// Where one transcription stands in the hotword tree, and the choices it may have to take back.
struct HotwordCursor {
  let hotwords: MoonshineHotwords
  /// The node the text so far reaches (0: no phrase in progress).
  private(set) var node: Int32 = 0
  /// The first choice of the phrase in progress that the bonus changed: its position, the
  /// logits it was made from, the token chosen, and the node before it.
  private var changed: Choice?
  /// The first choice of the phrase in progress when the model made it itself (no bonus
  /// needed): where to go back once if the phrase is abandoned and another token that starts a
  /// phrase spells further (see ``advance(_:choice:gap:position:row:)``).
  private var ownStart: Choice?
  /// A choice to make again, set when a phrase was abandoned after a changed choice.
  private(set) var takeBack: Choice?
  /// Tokens that get no bonus at a position: choices taken back there.
  private var banned: (position: Int, tokens: Set<Int32>)?
  /// How many choices were taken back.
  private(set) var takeBacks = 0
  /// How far below the model's own choices the tokens since ``changed`` scored, in all.
  private var deficit: Float = 0

  struct Choice {
    var position: Int
    var row: [Float]
    var token: Int32
    var node: Int32
  }

  init(_ hotwords: MoonshineHotwords) {
    self.hotwords = hotwords
  }

  /// Whether a phrase may start with the bonus's help: not right after one ended, so that the
  /// bonus cannot string phrases together ("Siobhan Siobhan Siobhan").
  private var startsPhrases: Bool {
    node == 0 || !hotwords.nodes[Int(node)].isEnd
  }

  /// Chooses the token at `position` from a row of logits: the highest once the bonus is added,
  /// with the model's own probability for it (softmax of the row). Moves along the tree; when
  /// that abandons a phrase whose choices the bonus changed, ``takeBack`` says where to go back to.
  mutating func choose(
    _ row: UnsafePointer<Float>, count: Int, position: Int
  ) -> (token: Int32, probability: Float) {
    var best = 0
    var top = row[0]
    for index in 1..<count where row[index] > top {
      best = index
      top = row[index]
    }
    var sum: Float = 0
    for index in 0..<count { sum += expf(row[index] - top) }

    let boost = hotwords.boost
    let banned = self.banned?.position == position ? self.banned?.tokens ?? [] : []
    // No phrase starts with the bonus where the model goes on with the word it is writing: a
    // name put there stands for the rest of an ordinary word ("Cook a meal" heard as
    // "Coca-meal" became "Coca Miele").
    let startsHere = startsPhrases && !hotwords.vocabulary.goesOnWithWord(Int32(best))
    func bonus(_ token: Int32) -> Float {
      guard !banned.contains(token), takeBacks < MoonshineHotwords.maximumTakeBacks else {
        return 0
      }
      if node != 0, hotwords.nodes[Int(node)].targets[token] != nil { return boost }
      return startsHere && hotwords.nodes[0].targets[token] != nil ? boost : 0
    }
    var chosen = Int32(best)
    var chosenScore = top + bonus(chosen)
    // The end of the text is the model's to choose: no phrase is added after it. After the
    // most take-backs, decoding goes on plainly.
    let candidateLists: [[MoonshineHotwords.Step]] =
      best == Int(MoonshineTokenizer.endOfText) || takeBacks >= MoonshineHotwords.maximumTakeBacks
      ? []
      : [
        node == 0 ? [] : hotwords.nodes[Int(node)].steps,
        startsHere ? hotwords.nodes[0].steps : [],
      ]
    for candidates in candidateLists {
      for step in candidates where Int(step.token) < count && !banned.contains(step.token) {
        let score = row[Int(step.token)] + boost
        if score > chosenScore {
          chosen = step.token
          chosenScore = score
        }
      }
    }
    var choice: Choice?
    if chosen != Int32(best) {
      choice = Choice(
        position: position, row: Array(UnsafeBufferPointer(start: row, count: count)),
        token: chosen, node: node)
    }
    advance(
      chosen, choice: choice, gap: top - row[Int(chosen)], position: position,
      row: UnsafeBufferPointer(start: row, count: count))
    return (chosen, expf(row[Int(chosen)] - top) / sum)
  }

  /// Moves along the tree with the token chosen; `choice` is set when the bonus changed it.
  /// `position` and `row` are the choice's, kept when the model itself starts a phrase.
  private mutating func advance(
    _ token: Int32, choice: Choice?, gap: Float, position: Int, row: UnsafeBufferPointer<Float>
  ) {
    let before = node
    // A phrase is whole once the word it ends goes no further.
    let ended =
      node != 0 && hotwords.nodes[Int(node)].isEnd && !hotwords.vocabulary.continuesWord(token)
    if ended { changed = nil }
    if node != 0, let next = hotwords.nodes[Int(node)].targets[token] {
      node = next
      if changed == nil {
        changed = choice
        deficit = 0
      }
    } else {
      if node != 0, !ended, let changed, takeBacks < MoonshineHotwords.maximumTakeBacks {
        // Abandoned before its end, or its end is the start of a longer word ("Aoifei"): go
        // back to where the bonus first changed a choice.
        takeBack = changed
        return
      }
      if node != 0, !ended, changed == nil, let start = ownStart,
        takeBacks < MoonshineHotwords.maximumTakeBacks,
        spellsFurther(than: hotwords.nodes[Int(node)].depth, instead: start)
      {
        // A phrase the model began itself, abandoned: its first token may have been a poor
        // spelling of a phrase's start (" P" for "Padraig", then "erdrick"). Go back once and
        // choose there with the bonus, without that token's.
        ownStart = nil
        takeBack = start
        return
      }
      node = hotwords.nodes[0].targets[token] ?? 0
      changed = node == 0 ? nil : choice
      // (Not right after a phrase ended: no phrase starts with the bonus there.)
      ownStart =
        node != 0 && choice == nil && before == 0
        ? Choice(position: position, row: Array(row), token: token, node: 0) : nil
      deficit = 0
    }
    if let changed {
      deficit += gap
      if deficit > hotwords.boost * MoonshineHotwords.budgetFactor,
        takeBacks < MoonshineHotwords.maximumTakeBacks
      {
        // Too unlikely as a whole: take it back as if abandoned.
        takeBack = changed
        return
      }
    }
  }

  /// Whether, at `start` (a phrase the model began itself), another token that starts a phrase
  /// would win with the bonus once `start`'s token has none, and spells beyond `depth` bytes of
  /// it: further than the abandoned phrase got.
  private func spellsFurther(than depth: Int32, instead start: Choice) -> Bool {
    let banned = self.banned?.position == start.position ? self.banned?.tokens ?? [] : []
    let own = start.row[Int(start.token)]
    return hotwords.nodes[0].steps.contains { step in
      step.token != start.token && !banned.contains(step.token)
        && Int(step.token) < start.row.count
        && start.row[Int(step.token)] + hotwords.boost > own
        && hotwords.nodes[Int(step.node)].depth > depth
    }
  }

  /// Goes back to the choice ``takeBack`` names, to make it again without its token's bonus;
  /// returns it (the caller cuts its tokens and the decoder's state back to its position).
  mutating func goBack() -> Choice? {
    guard let choice = takeBack else { return nil }
    takeBack = nil
    takeBacks += 1
    node = choice.node
    changed = nil
    if banned?.position == choice.position {
      banned?.tokens.insert(choice.token)
    } else {
      banned = (choice.position, [choice.token])
    }
    return choice
  }
}

extension MoonshineRecognizer {
  /// Favours `phrases` (in place of the configuration's) until the next ``reset()``: a stream's
  /// own list, on a recognizer borrowed from a pool. ``decodeSegment(_:startingAt:)`` keeps
  /// them: a file's pieces are decoded with its list.
  ///
  /// - Parameter boost: what is added to a favoured token's logit; `nil` for the configuration's.
  public func favour(_ phrases: [String], boost: Float? = nil) {
    let boost = boost ?? configuration.hotwordBoost
    let phrases = phrases.filter { !MoonshineHotwords.spelling(of: $0).isEmpty }
    guard let model else {
      transcriberPhrases = phrases
      return
    }
    // The list it favours already, or the configuration's, is not compiled again.
    if phrases.isEmpty {
      hotwords = nil
    } else if let hotwords, hotwords.phrases == phrases, hotwords.boost == boost {
      return
    } else if let configuredHotwords, configuredHotwords.phrases == phrases,
      configuredHotwords.boost == boost
    {
      hotwords = configuredHotwords
    } else {
      hotwords = model.hotwords(phrases, boost: boost)
    }
  }

  /// The phrases the recognizer favours now.
  public var favouredPhrases: [String] {
    model == nil ? transcriberPhrases : hotwords?.phrases ?? []
  }
}
