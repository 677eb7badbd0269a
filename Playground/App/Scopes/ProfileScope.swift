import ScopeKit
import SobreiroScopeKit

/// The Profile tab's feature: it keeps the profile model and runs its work while the tab is in the tree.
@MainActor
final class ProfileScope: Scope {
    let profile: ProfileViewModel

    init(profile: ProfileViewModel) {
        self.profile = profile
        super.init()
        bind(profile)
    }
}
