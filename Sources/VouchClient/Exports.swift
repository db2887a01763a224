/// The wire types the client's API speaks (`Identity`, `ChallengeReason`, `CurrentUserResponse`,
/// `RejectionReason`), so that an app needs one import.
@_exported import VouchProtocol
