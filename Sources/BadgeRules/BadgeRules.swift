// The rule host lives here: see RuleHost.swift.
@_exported import Activities
