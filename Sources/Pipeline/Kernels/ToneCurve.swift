import Dispatch
import Foundation

/// Three planes of 16-bit samples of one picture (Y', Cb, Cr), rows `lineSizes` bytes apart:
/// what a pixel kernel works on in place. A view: whoever lends it owns the memory.
struct Planes16 {
    let width: Int, height: Int
    let y: UnsafeMutablePointer<UInt8>, cb: UnsafeMutablePointer<UInt8>, cr: UnsafeMutablePointer<UInt8>
    let lineSizes: (Int, Int, Int)
}

/// The per-pixel arithmetic, on 16-bit planes in place. Transfer functions are tables.
struct ToneCurve {
    /// Entries of the transfer tables (inputs are 0…1, quantised to this many steps).
    static let steps = 16384
    /// HDR reference white (ITU-R BT.2408): the light that becomes SDR white.
    static let referenceWhite = 203.0
    /// Below this (relative to reference white) light passes unchanged; above, it is compressed.
    static let knee = 0.5

    let transfer: DynamicRange
    let fullRange: Bool
    /// Source matrix: Kr, Kb.
    let kr: Float, kb: Float
    let toBT709: Bool
    /// Signal (0…1) → light relative to reference white (PQ), or scene light 0…1 (HLG).
    let linear: [Float]
    /// Output light 0…1 → BT.1886 signal 0…1.
    let encode: [Float]
    /// HLG only: Ys → Ys^(γ-1), the OOTF's gain.
    let hlgGain: [Float]
    let peak: Double
    let mobiusA: Double, mobiusB: Double, mobiusScale: Double

    init(_ m: ToneMapping) {
        transfer = m.transfer
        fullRange = m.sourceRange == "pc"
        switch m.sourceMatrix {
        case "bt709": (kr, kb) = (0.2126, 0.0722)
        case "smpte170m", "bt470bg": (kr, kb) = (0.299, 0.114)
        default: (kr, kb) = (0.2627, 0.0593)
        }
        toBT709 = m.sourcePrimaries != "bt709"
        let n = Self.steps
        let white = Self.referenceWhite
        switch m.transfer {
        case .hlg:
            linear = (0...n).map { i in Float(Self.hlgInverseOETF(Double(i) / Double(n))) }
            // Display light = 1000 · Ys^0.2 · E (BT.2100, γ 1.2 at 1000 cd/m²), relative to white.
            hlgGain = (0...n).map { i in Float(1000 / white * pow(Double(i) / Double(n), 0.2)) }
        default:
            linear = (0...n).map { i in Float(Self.pqEOTF(Double(i) / Double(n)) / white) }
            hlgGain = []
        }
        encode = (0...n).map { i in Float(pow(Double(i) / Double(n), 1 / 2.4)) }
        peak = max(m.peakLuminance, 1) / white
        // Möbius (as in mpv): linear to the knee, then a curve that meets it smoothly and reaches
        // 1 at the peak.
        let j = Self.knee, p = peak
        mobiusA = -j * j * (p - 1) / (j * j - 2 * j + p)
        mobiusB = (j * j - 2 * j * p + p) / max(1e-6, p - 1)
        mobiusScale = (mobiusB * mobiusB + 2 * mobiusB * j + j * j) / (mobiusB - mobiusA)
    }

    /// ST 2084 EOTF: signal → cd/m².
    static func pqEOTF(_ e: Double) -> Double {
        let m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128
        let c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32
        let p = pow(e, 1 / m2)
        return 10000 * pow(max(p - c1, 0) / (c2 - c3 * p), 1 / m1)
    }

    /// BT.2100 HLG inverse OETF: signal → scene light 0…1.
    static func hlgInverseOETF(_ e: Double) -> Double {
        let a = 0.17883277, b = 1 - 4 * a, c = 0.5 - a * log(4 * a)
        return e <= 0.5 ? e * e / 3 : (exp((e - c) / a) + b) / 12
    }

    /// Light relative to reference white → 0…1 SDR light.
    func compress(_ x: Double) -> Double {
        if peak <= 1 { return min(x, 1) }
        if x <= Self.knee { return x }
        return min(1, mobiusScale * (x + mobiusA) / (x + mobiusB))
    }

    /// Maps a picture of three 16-bit planes (Y', Cb, Cr, 4:4:4) in place, bands of rows on all
    /// cores: each pixel depends on itself only, and the bands write disjoint rows.
    func apply(to picture: Planes16) {
        let h = picture.height
        let bands = max(1, min(h / 16, ProcessInfo.processInfo.activeProcessorCount * 2))
        // The planes are lent to the bands only until concurrentPerform returns, and each band
        // reads and writes its own rows: no two threads touch the same bytes.
        nonisolated(unsafe) let shared = picture
        DispatchQueue.concurrentPerform(iterations: bands) { band in
            apply(to: shared, rows: (h * band / bands)..<(h * (band + 1) / bands))
        }
    }

    // Written for speed in debug builds too: no generic min/max or variadic calls, no bounds-checked
    // subscripts, constants hoisted out of the loop.
    private func apply(to picture: Planes16, rows: Range<Int>) {
        let w = picture.width
        let (y0, u0, v0) = (picture.y, picture.cb, picture.cr)
        let (ly, lu, lv) = picture.lineSizes
        let kg = 1 - kr - kb
        let yOff: Float = fullRange ? 0 : 4096
        let yInv: Float = 1 / (fullRange ? 65535 : 56064), cInv: Float = 1 / (fullRange ? 65535 : 57344)
        let crR = 2 * (1 - kr), cbB = 2 * (1 - kb), kgInv = 1 / kg
        let top = Float(Self.steps)
        let isHLG = transfer == .hlg, knee = Float(Self.knee), gamut = toBT709
        linear.withUnsafeBufferPointer { linBuffer in
        encode.withUnsafeBufferPointer { encBuffer in
        hlgGain.withUnsafeBufferPointer { gainBuffer in
            guard let lin = linBuffer.baseAddress, let enc = encBuffer.baseAddress else { return }
            let gain = gainBuffer.baseAddress
            @inline(__always) func index(_ v: Float) -> Int {
                Int((v < 0 ? 0 : (v > 1 ? 1 : v)) * top + 0.5)
            }
            @inline(__always) func sample(_ v: Float) -> UInt16 {
                UInt16(v < 0 ? 0 : (v > 65535 ? 65535 : v))
            }
            for row in rows {
                let py = UnsafeMutableRawPointer(y0 + row * ly).assumingMemoryBound(to: UInt16.self)
                let pu = UnsafeMutableRawPointer(u0 + row * lu).assumingMemoryBound(to: UInt16.self)
                let pv = UnsafeMutableRawPointer(v0 + row * lv).assumingMemoryBound(to: UInt16.self)
                for x in 0..<w {
                    let yv = (Float(py[x]) - yOff) * yInv
                    let cb = (Float(pu[x]) - 32768) * cInv, cr = (Float(pv[x]) - 32768) * cInv
                    let r1 = yv + crR * cr, b1 = yv + cbB * cb
                    let g1 = (yv - kr * r1 - kb * b1) * kgInv
                    var r = lin[index(r1)], g = lin[index(g1)], b = lin[index(b1)]
                    if isHLG, let gain {
                        let k = gain[index(0.2627 * r + 0.6780 * g + 0.0593 * b)]
                        r *= k; g *= k; b *= k
                    }
                    if gamut {
                        let r709 = 1.6605 * r - 0.5876 * g - 0.0728 * b
                        let g709 = -0.1246 * r + 1.1329 * g - 0.0083 * b
                        let b709 = -0.0182 * r - 0.1006 * g + 1.1187 * b
                        r = r709 < 0 ? 0 : r709; g = g709 < 0 ? 0 : g709; b = b709 < 0 ? 0 : b709
                    }
                    let m = r > g ? (r > b ? r : b) : (g > b ? g : b)
                    if m > knee {
                        let s = Float(compress(Double(m))) / m
                        r *= s; g *= s; b *= s
                    }
                    let r2 = enc[index(r)], g2 = enc[index(g)], b2 = enc[index(b)]
                    let y2 = 0.2126 * r2 + 0.7152 * g2 + 0.0722 * b2
                    let cb2 = (b2 - y2) * (1 / 1.8556), cr2 = (r2 - y2) * (1 / 1.5748)
                    py[x] = sample(4096 + y2 * 56064 + 0.5)
                    pu[x] = sample(32768 + cb2 * 57344 + 0.5)
                    pv[x] = sample(32768 + cr2 * 57344 + 0.5)
                }
            }
        }
        }
        }
    }
}
