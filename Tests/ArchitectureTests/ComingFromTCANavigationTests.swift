import Architecture
import Clocks
import Observation
import Testing

// A feature written as for TCA 1.x, with a destination and a stack: only the import differs.

@Reducer
struct ContactsFeature {
  @ObservableState
  struct State: Equatable {
    var contacts: [String] = []
    @Presents var destination: Destination.State?
    var path = StackState<Path.State>()
  }

  enum Action {
    case addButtonTapped
    case destination(PresentationAction<Destination.Action>)
    case path(StackActionOf<Path>)
    case showDetail(String)
  }

  @Reducer
  enum Destination {
    case addContact(AddContactFeature)
    @ReducerCaseIgnored
    case notice(String)
  }

  @Reducer
  enum Path {
    case detail(ContactDetailFeature)
  }

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .addButtonTapped:
        state.destination = .addContact(AddContactFeature.State())
        return .none
      case .destination(.presented(.addContact(.delegate(.saveContact(let name))))):
        state.contacts.append(name)
        return .none
      case .destination:
        return .none
      case .path(.element(id: _, action: .detail(.delegate(.deleted(let name))))):
        state.contacts.removeAll { $0 == name }
        return .none
      case .path:
        return .none
      case .showDetail(let name):
        state.path.append(.detail(ContactDetailFeature.State(name: name)))
        return .none
      }
    }
    .ifLet(\.$destination, action: \.destination)
    .forEach(\.path, action: \.path)
  }
}

extension ContactsFeature.Destination.State: Equatable {}
extension ContactsFeature.Path.State: Equatable {}

@Reducer
struct AddContactFeature {
  @ObservableState
  struct State: Equatable {
    var name = ""
  }
  enum Action {
    case cancelButtonTapped
    case delegate(Delegate)
    case saveButtonTapped
    case setName(String)
    @CasePathable
    enum Delegate: Equatable {
      case saveContact(String)
    }
  }
  @Dependency(\.dismiss) var dismiss

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .cancelButtonTapped:
        return .run { _ in await self.dismiss() }
      case .delegate:
        return .none
      case .saveButtonTapped:
        return .run { [name = state.name] send in
          await send(.delegate(.saveContact(name)))
          await self.dismiss()
        }
      case .setName(let name):
        state.name = name
        return .none
      }
    }
  }
}

@Reducer
struct ContactDetailFeature {
  @ObservableState
  struct State: Equatable {
    var name: String
    var secondsOpen = 0
  }
  enum Action {
    case delegate(Delegate)
    case deleteButtonTapped
    case onAppear
    case tick
    @CasePathable
    enum Delegate: Equatable {
      case deleted(String)
    }
  }
  @Dependency(\.continuousClock) var clock
  @Dependency(\.dismiss) var dismiss

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .delegate:
        return .none
      case .deleteButtonTapped:
        return .run { [name = state.name] send in
          await send(.delegate(.deleted(name)))
          await self.dismiss()
        }
      case .onAppear:
        return .run { send in
          for await _ in clock.timer(interval: .seconds(1)) {
            await send(.tick)
          }
        }
      case .tick:
        state.secondsOpen += 1
        return .none
      }
    }
  }
}

@MainActor
struct ComingFromTCANavigationTests {
  @Test func addingAContactThroughTheDestination() async {
    let store = TestStore(initialState: ContactsFeature.State()) {
      ContactsFeature()
    }
    await store.send(.addButtonTapped) {
      $0.destination = .addContact(AddContactFeature.State())
    }
    await store.send(\.destination.addContact.setName, "Blob") {
      $0.$destination[case: \.addContact]?.name = "Blob"
    }
    await store.send(\.destination.addContact.saveButtonTapped)
    await store.receive(\.destination.addContact.delegate.saveContact, "Blob") {
      $0.contacts = ["Blob"]
    }
    await store.receive(\.destination.dismiss) {
      $0.destination = nil
    }
  }

  @Test func cancellingTheDestination() async {
    let store = TestStore(initialState: ContactsFeature.State()) {
      ContactsFeature()
    }
    await store.send(.addButtonTapped) {
      $0.destination = .addContact(AddContactFeature.State())
    }
    await store.send(\.destination.addContact.cancelButtonTapped)
    await store.receive(\.destination.dismiss) {
      $0.destination = nil
    }
  }

  @Test func aNonExhaustiveTestAssertsOnlyWhatItCaresAbout() async {
    let store = TestStore(initialState: ContactsFeature.State()) {
      ContactsFeature()
    }
    store.exhaustivity = .off
    await store.send(.addButtonTapped)
    await store.send(\.destination.addContact.setName, "Blob")
    await store.send(\.destination.addContact.saveButtonTapped)
    await store.skipReceivedActions()
    store.assert {
      $0.contacts = ["Blob"]
      $0.destination = nil
    }
  }

  @Test func deletingFromAPushedDetailPopsIt() async {
    let clock = TestClock()
    let store = TestStore(initialState: ContactsFeature.State(contacts: ["Blob", "Blob Jr."])) {
      ContactsFeature()
    } withDependencies: {
      $0.continuousClock = clock
    }
    await store.send(.showDetail("Blob")) {
      $0.path[id: 0] = .detail(ContactDetailFeature.State(name: "Blob"))
    }
    await store.send(\.path[id: 0].detail.onAppear)
    await clock.advance(by: .seconds(1))
    await store.receive(\.path[id: 0].detail.tick) {
      $0.path[id: 0, case: \.detail]?.secondsOpen = 1
    }
    await store.send(\.path[id: 0].detail.deleteButtonTapped)
    await store.receive(\.path[id: 0].detail.delegate.deleted, "Blob") {
      $0.contacts = ["Blob Jr."]
    }
    await store.receive(\.path.popFrom, 0) {
      $0.path = StackState()
    }
    // The detail's timer ended with it.
    await clock.advance(by: .seconds(5))
  }

  @Test func presentingIsObservable() async {
    let store = Store(initialState: ContactsFeature.State()) {
      ContactsFeature()
    }
    let destinationChanged = LockIsolated(false)
    withObservationTracking {
      _ = store.state.destination
    } onChange: {
      destinationChanged.setValue(true)
    }
    store.send(.addButtonTapped)
    #expect(destinationChanged.value)
    #expect(store.destination == .addContact(AddContactFeature.State()))

    // Typing in the presented child changes the child, not which child is presented.
    let destinationReplaced = LockIsolated(false)
    withObservationTracking {
      _ = store.state.destination
    } onChange: {
      destinationReplaced.setValue(true)
    }
    store.send(.destination(.presented(.addContact(.setName("B")))))
    #expect(!destinationReplaced.value)
    #expect(store.state.destination == .addContact(AddContactFeature.State(name: "B")))
  }
}

extension ComingFromTCANavigationTests {
  @Test func aHostDrivesThePresentedChildThroughAScopedStore() {
    let store = Store(initialState: ContactsFeature.State()) {
      ContactsFeature()
    }
    #expect(
      store.scope(state: \.destination?.addContact, action: \.destination.addContact) == nil)
    store.send(.addButtonTapped)
    let addContact = store.scope(
      state: \.destination?.addContact, action: \.destination.addContact)
    addContact?.send(.setName("Blob"))
    #expect(addContact?.state.name == "Blob")
    #expect(store.destination == .addContact(AddContactFeature.State(name: "Blob")))
  }
}
