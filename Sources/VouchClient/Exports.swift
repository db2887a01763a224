/// The wire types the client's API speaks (`Identity`, `ChallengeReason`,
/// `RejectionReason`), so that an app needs one import.
@_exported import VouchProtocol
