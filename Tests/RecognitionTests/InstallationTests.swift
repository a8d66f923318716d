import Testing

@testable import Recognition

@Suite struct InstallationTests {
  @Test func onlyThePackagedCommandIsThePackage() {
    #expect(Installation(executable: "/usr/bin/transcribe") == .debianPackage)
    #expect(Installation(executable: "/usr/local/bin/transcribe") == .checkout)
    #expect(Installation(executable: "/work/transcribe/.build/release/transcribe") == .checkout)
    #expect(Installation(executable: nil) == .checkout)
  }

  @Test func theseTestsRunFromACheckout() {
    #expect(Installation.current == .checkout)
  }

  @Test func aPackageUserIsSentToTheirPackages() {
    let package = Installation.debianPackage
    #expect(package.reinstallEnglishEngine.contains("sudo apt install --reinstall transcribe"))
    #expect(package.installWhisper.contains("sudo apt install transcribe-whisper"))
    for message in [package.reinstallEnglishEngine, package.installWhisper] {
      #expect(!message.contains("scripts/"))
    }
  }

  @Test func aCheckoutIsSentToTheInstaller() {
    let checkout = Installation.checkout
    #expect(checkout.reinstallEnglishEngine.contains("./scripts/install-dependencies.sh"))
    #expect(checkout.installWhisper.contains("./scripts/install-dependencies.sh --whisper"))
    #expect(!checkout.installWhisper.contains("apt"))
  }
}
