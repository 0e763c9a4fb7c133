/// Numbers as a device meant them.
public enum DeviceNumber {
    /// The decimal a device meant when it wrote a single-precision float's full expansion.
    ///
    /// Exporters that keep figures as 32-bit floats write them with every digit of the float
    /// (`14004.849609375` for the watch's 14004.85 m, `10630.3701171875` for 10630.37 m), so a reader in
    /// double precision gets the float's error with them. When `value` is exactly a single-precision
    /// float and the shortest decimal that reads back as that float (`Float.description`, the
    /// round-trip shortest form) is another, shorter number, that number is the one meant and is
    /// returned; any other value (`10630.37` as written, `0.5`, an integer) is returned unchanged. Read
    /// once per total, never per point.
    public static func intended(_ value: Double) -> Double {
        guard value.isFinite, value != 0 else { return value }
        let single = Float(value)
        guard single.isFinite, Double(single) == value, let shortest = Double(single.description) else { return value }
        return shortest
    }
}
