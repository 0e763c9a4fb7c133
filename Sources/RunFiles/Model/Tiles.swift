import Foundation

/// Slippy-map tiles: the usual Web Mercator scheme (x from 0 at 180°W eastwards, y from 0 at about
/// 85.05°N southwards, 2^zoom of each). A tile travels as one integer key, `x * 2^24 + y`, the same at
/// every zoom (`x = key // 16777216`, `y = key % 16777216` in Lua).
public enum Tiles {
    public static let maximumZoom = 20
    public static let keyFactor = 1 << 24
    /// Mercator's latitude limit: the square world map.
    public static let maximumLatitude = 85.051_128_779_806_59

    /// The tile key of `x`, `y`.
    public static func key(x: Int, y: Int) -> Int { x * keyFactor + y }

    /// The fractional tile coordinates of a point at `zoom` (x in [0, 2^zoom), y clamped to the map).
    public static func coordinates(latitude: Double, longitude: Double, zoom: Int) -> (x: Double, y: Double) {
        let n = Double(1 << zoom)
        let lat = min(max(latitude, -maximumLatitude), maximumLatitude) * Double.pi / 180
        let x = (longitude + 180) / 360 * n
        let y = (1 - log(tan(lat) + 1 / cos(lat)) / Double.pi) / 2 * n
        let limit = n.nextDown
        return (min(max(0, x), limit), min(max(0, y), limit))
    }

    /// The edges of tile `x`, `y` in degrees, each a hair (1e-9°) inside: a point strictly within them is
    /// in that tile whatever the rounding of the Mercator formulas.
    public static func bounds(x: Int, y: Int, zoom: Int) -> (south: Double, north: Double, west: Double, east: Double) {
        let n = Double(1 << zoom), hair = 1e-9
        func latitude(_ row: Double) -> Double { atan(sinh(Double.pi * (1 - 2 * row / n))) * 180 / Double.pi }
        return (latitude(Double(y + 1)) + hair, latitude(Double(y)) - hair,
                Double(x) / n * 360 - 180 + hair, Double(x + 1) / n * 360 - 180 - hair)
    }

    /// The tile holding a point.
    public static func tile(latitude: Double, longitude: Double, zoom: Int) -> (x: Int, y: Int) {
        let c = coordinates(latitude: latitude, longitude: longitude, zoom: zoom)
        return (Int(c.x), Int(c.y))
    }

    /// Steps spanning more tiles than this (a recording gap across a country, a flight) add only their
    /// ends' tiles: nobody ran through the ones between.
    public static let maximumTilesPerStep = 1000

    /// Calls `visit` with every tile the straight line (in the Mercator plane) from `a` to `b` passes
    /// through, `a`'s first (a grid walk, Amanatides and Woo: one tile per crossed grid line; a line
    /// through a corner exactly visits one of the two side tiles too). A step goes the short way round:
    /// one across the antimeridian (x from 2^zoom − 0.1 to 0.1) crosses it, visiting the tiles at both
    /// edges of the map, not every tile of the row between. A step longer than `maximumTilesPerStep`
    /// tiles visits only its ends' tiles.
    public static func walk(from a: (x: Double, y: Double), to b: (x: Double, y: Double), zoom: Int, visit: (Int, Int) -> Void) {
        let columns = 1 << zoom
        // b's x taken within half the map of a's (possibly off the map, one turn east or west); tiles are
        // visited with their column brought back onto it.
        var bx = b.x
        if bx - a.x > Double(columns) / 2 { bx -= Double(columns) } else if a.x - bx > Double(columns) / 2 { bx += Double(columns) }
        func column(_ x: Int) -> Int { ((x % columns) + columns) % columns }
        var tx = Int(a.x.rounded(.down)), ty = Int(a.y)
        let ex = Int(bx.rounded(.down)), ey = Int(b.y)
        let dx = bx - a.x, dy = b.y - a.y
        let span = abs(ex - tx) + abs(ey - ty)
        visit(tx, ty)
        if span == 0 { return }
        guard span <= maximumTilesPerStep else { visit(column(ex), ey); return }
        let stepX = dx > 0 ? 1 : -1, stepY = dy > 0 ? 1 : -1
        // Parameter t (0 at a, 1 at b) of the next vertical and horizontal grid line crossed.
        var nextX = dx == 0 ? Double.infinity : ((dx > 0 ? Double(tx + 1) : Double(tx)) - a.x) / dx
        var nextY = dy == 0 ? Double.infinity : ((dy > 0 ? Double(ty + 1) : Double(ty)) - a.y) / dy
        let deltaX = dx == 0 ? Double.infinity : abs(1 / dx), deltaY = dy == 0 ? Double.infinity : abs(1 / dy)
        var remaining = span
        while remaining > 0 {
            if ty == ey || (tx != ex && nextX < nextY) {
                tx += stepX; nextX += deltaX
            } else {
                ty += stepY; nextY += deltaY
            }
            remaining -= 1
            visit(column(tx), ty)
        }
    }
}
