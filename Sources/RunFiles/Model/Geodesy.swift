import Foundation

/// Distances on the WGS84 ellipsoid.
///
/// Steps between consecutive GPS points are metres to tens of metres long, so badgectl measures
/// each step in the local tangent plane of the ellipsoid: east-west with the prime-vertical radius
/// of curvature N(φ)·cos φ, north-south with the meridional radius M(φ), both at the step's mean
/// latitude. Over steps under 10 km this agrees with the exact WGS84 geodesic (GeographicLib) to
/// better than 1 part in 10⁶, costs one `sin`, one division and one `sqrt`, and is ~0.1% shorter than gpxpy,
/// which uses a sphere with the equatorial radius. Longer steps (gaps, teleports) use Lambert's
/// formula on the ellipsoid (good to ~10 m over 1,000 km).
public enum Geodesy {
    public static let equatorialRadius = 6_378_137.0
    public static let flattening = 1 / 298.257_223_563
    public static let eccentricitySquared = flattening * (2 - flattening)
    /// IUGG mean Earth radius, used where a sphere is enough (Lambert's central angle).
    public static let meanRadius = 6_371_008.8
    /// Radians per degree (computed, so that code inlined into other modules folds it to a constant).
    @inlinable static var degrees: Double { Double.pi / 180 }

    /// Metres between two points given in degrees. Inlinable: the analyzer (another module) calls
    /// it for every step.
    @inlinable @inline(__always)
    public static func distance(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double {
        let phi = (lat1 + lat2) * 0.5 * degrees
        let dPhi = (lat2 - lat1) * degrees
        var dLambda = (lon2 - lon1) * degrees
        if dLambda > Double.pi { dLambda -= 2 * Double.pi } else if dLambda < -Double.pi { dLambda += 2 * Double.pi }
        // With s = sin φ and w = 1 − e²s²: N = a/√w, M = N(1 − e²)/w, east = N·cos φ·Δλ,
        // north = M·Δφ, so d = a·√((cos²φ·Δλ² + ((1 − e²)/w)²·Δφ²)/w) with cos²φ = 1 − s²:
        // one sin, one division and one square root a step.
        let s = sin(phi)
        let s2 = s * s
        let inverseW = 1 / (1 - eccentricitySquared * s2)
        let k = (1 - eccentricitySquared) * inverseW
        let east2 = (1 - s2) * dLambda * dLambda
        let north = k * dPhi
        let d = equatorialRadius * ((east2 + north * north) * inverseW).squareRoot()
        if d < 10_000 { return d }
        return lambert(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2)
    }

    /// Lambert's formula for long lines on the ellipsoid.
    public static func lambert(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double {
        let a = equatorialRadius, f = flattening
        let beta1 = atan((1 - f) * tan(lat1 * degrees))
        let beta2 = atan((1 - f) * tan(lat2 * degrees))
        // Central angle by haversine on the reduced latitudes.
        let dBeta = beta2 - beta1
        let dLambda = (lon2 - lon1) * degrees
        let h = sin(dBeta / 2) * sin(dBeta / 2) + cos(beta1) * cos(beta2) * sin(dLambda / 2) * sin(dLambda / 2)
        let sigma = 2 * asin(min(1, h.squareRoot()))
        if sigma == 0 { return 0 }
        let p = (beta1 + beta2) / 2, q = (beta2 - beta1) / 2
        let x = (sigma - sin(sigma)) * (sin(p) * sin(p) * cos(q) * cos(q)) / (cos(sigma / 2) * cos(sigma / 2))
        let y = (sigma + sin(sigma)) * (cos(p) * cos(p) * sin(q) * sin(q)) / (sin(sigma / 2) * sin(sigma / 2))
        return a * (sigma - f / 2 * (x + y))
    }

    /// Haversine on the mean-radius sphere, kept for comparisons and documentation.
    public static func haversine(lat1: Double, lon1: Double, lat2: Double, lon2: Double, radius: Double = meanRadius) -> Double {
        let p1 = lat1 * degrees, p2 = lat2 * degrees
        let dp = p2 - p1, dl = (lon2 - lon1) * degrees
        let h = sin(dp / 2) * sin(dp / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2)
        return 2 * radius * asin(min(1, h.squareRoot()))
    }

    /// True when a latitude/longitude pair is a usable position.
    @inlinable @inline(__always)
    public static func isValid(latitude: Double, longitude: Double) -> Bool {
        latitude.isFinite && longitude.isFinite && latitude >= -90 && latitude <= 90 && longitude >= -180 && longitude <= 180
    }
}
