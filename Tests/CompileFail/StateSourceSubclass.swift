// Proves: StateSource is sealed: a source of states is a ViewModel, or a projection that map makes.
import Sobreiro

final class Stream: StateSource<Int>, @unchecked Sendable {
    // expected-error@+3 {{initializer does not override a designated initializer from its superclass}}
    // expected-error@+2 {{'StateSource<Value>' initializer is inaccessible due to 'internal' protection level}}
    // expected-error@+1 {{missing argument for parameter 'addRecord' in call}}
    override init() { super.init() }
}
