import ArgumentParser
import KeyboardClient
import KeyboardClientLive

/// `--typer`: how `transcribe dictate` types.
extension Typer: ExpressibleByArgument {}

extension Typer {
  /// The keyboard client for this typer, checked up front, and the tool it chose.
  func makeClient() throws(KeyboardClientFailure) -> (client: KeyboardClient, choice: TyperChoice) {
    let choice = try KeyboardClient.resolve(self)
    return (KeyboardClient.live(choice), choice)
  }
}
