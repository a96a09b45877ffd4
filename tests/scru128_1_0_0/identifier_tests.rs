#[cfg(test)]
mod tests {
    use super::Scru128Id;
    use crate::Scru128Generator;

    const MAX_UINT44: u64 = (1 << 44) - 1;
    const MAX_UINT28: u32 = (1 << 28) - 1;
    const MAX_UINT24: u32 = (1 << 24) - 1;
    const MAX_UINT32: u32 = u32::MAX;

    /// Encodes and decodes prepared cases correctly
    #[test]
    fn it_encodes_and_decodes_prepared_cases_correctly() {
        let cases: Vec<((u64, u32, u32, u32), &str)> = vec![
            ((0, 0, 0, 0), "00000000000000000000000000"),
            ((MAX_UINT44, 0, 0, 0), "7VVVVVVVVG0000000000000000"),
            ((MAX_UINT44, 0, 0, 0), "7vvvvvvvvg0000000000000000"),
            ((0, MAX_UINT28, 0, 0), "000000000FVVVVU00000000000"),
            ((0, MAX_UINT28, 0, 0), "000000000fvvvvu00000000000"),
            ((0, 0, MAX_UINT24, 0), "000000000000001VVVVS000000"),
            ((0, 0, MAX_UINT24, 0), "000000000000001vvvvs000000"),
            ((0, 0, 0, MAX_UINT32), "00000000000000000003VVVVVV"),
            ((0, 0, 0, MAX_UINT32), "00000000000000000003vvvvvv"),
            (
                (MAX_UINT44, MAX_UINT28, MAX_UINT24, MAX_UINT32),
                "7VVVVVVVVVVVVVVVVVVVVVVVVV",
            ),
            (
                (MAX_UINT44, MAX_UINT28, MAX_UINT24, MAX_UINT32),
                "7vvvvvvvvvvvvvvvvvvvvvvvvv",
            ),
        ];

        for e in cases {
            let from_fields = Scru128Id::from_fields(e.0 .0, e.0 .1, e.0 .2, e.0 .3);
            let from_string = e.1.parse::<Scru128Id>().unwrap();

            assert_eq!(from_fields, from_string);
            assert_eq!(
                from_fields.as_u128(),
                u128::from_str_radix(e.1, 32).unwrap()
            );
            assert_eq!(
                from_string.as_u128(),
                u128::from_str_radix(e.1, 32).unwrap()
            );
            assert_eq!(
                (
                    (
                        from_fields.timestamp(),
                        from_fields.counter(),
                        from_fields.per_sec_random(),
                        from_fields.per_gen_random(),
                    ),
                    from_fields.to_string(),
                ),
                (e.0, e.1.to_uppercase()),
            );
            assert_eq!(
                (
                    (
                        from_string.timestamp(),
                        from_string.counter(),
                        from_string.per_sec_random(),
                        from_string.per_gen_random(),
                    ),
                    from_string.to_string(),
                ),
                (e.0, e.1.to_uppercase()),
            );
        }
    }

    /// Returns error if an invalid string representation is supplied
    #[test]
    fn it_returns_error_if_an_invalid_string_representation_is_supplied() {
        let cases = vec![
            "",
            " 00SCT4FL89GQPRHN44C4LFM0OV",
            "00SCT4FL89GQPRJN44C7SQO381 ",
            " 00SCT4FL89GQPRLN44C4BGCIIO ",
            "+00SCT4FL89GQPRNN44C4F3QD24",
            "-00SCT4FL89GQPRPN44C7H4E5RC",
            "+0SCT4FL89GQPRRN44C55Q7RVC",
            "-0SCT4FL89GQPRTN44C6PN0A2R",
            "00SCT4FL89WQPRVN44C41RGVMM",
            "00SCT4FL89GQPS1N4_C54QDC5O",
            "00SCT4-L89GQPS3N44C602O0K8",
            "00SCT4FL89GQPS N44C7VHS5QJ",
            "80000000000000000000000000",
            "VVVVVVVVVVVVVVVVVVVVVVVVVV",
        ];

        for e in cases {
            assert!(e.parse::<Scru128Id>().is_err());
        }
    }

    /// Has symmetric converters from/to various values
    #[test]
    fn it_has_symmetric_converters() {
        let mut cases = vec![
            Scru128Id::from_fields(0, 0, 0, 0),
            Scru128Id::from_fields(MAX_UINT44, 0, 0, 0),
            Scru128Id::from_fields(0, MAX_UINT28, 0, 0),
            Scru128Id::from_fields(0, 0, MAX_UINT24, 0),
            Scru128Id::from_fields(0, 0, 0, MAX_UINT32),
            Scru128Id::from_fields(MAX_UINT44, MAX_UINT28, MAX_UINT24, MAX_UINT32),
        ];

        let mut g = Scru128Generator::new();
        for _ in 0..1000 {
            cases.push(g.generate());
        }

        for e in cases {
            assert_eq!(e.to_string().parse::<Scru128Id>(), Ok(e));
            assert_eq!(Scru128Id::from_u128(e.as_u128()), e);
            assert_eq!(
                Scru128Id::from_fields(
                    e.timestamp(),
                    e.counter(),
                    e.per_sec_random(),
                    e.per_gen_random()
                ),
                e
            );
        }
    }

    /// Supports comparison operators
    #[test]
    fn it_supports_comparison_operators() {
        fn hash(v: impl std::hash::Hash) -> u64 {
            use std::{collections::hash_map::DefaultHasher, hash::Hasher};
            let mut hasher = DefaultHasher::new();
            v.hash(&mut hasher);
            hasher.finish()
        }

        let mut ordered = vec![
            Scru128Id::from_fields(0, 0, 0, 0),
            Scru128Id::from_fields(0, 0, 0, 1),
            Scru128Id::from_fields(0, 0, 0, MAX_UINT32),
            Scru128Id::from_fields(0, 0, 1, 0),
            Scru128Id::from_fields(0, 0, MAX_UINT24, 0),
            Scru128Id::from_fields(0, 1, 0, 0),
            Scru128Id::from_fields(0, MAX_UINT28, 0, 0),
            Scru128Id::from_fields(1, 0, 0, 0),
            Scru128Id::from_fields(2, 0, 0, 0),
        ];

        let mut g = Scru128Generator::new();
        for _ in 0..1000 {
            ordered.push(g.generate());
        }

        let mut prev = ordered.remove(0);
        for curr in ordered {
            assert_ne!(curr, prev);
            assert_ne!(prev, curr);
            assert_ne!(hash(curr), hash(prev));
            assert!(curr > prev);
            assert!(curr >= prev);
            assert!(prev < curr);
            assert!(prev <= curr);

            let clone = curr.clone();
            assert_eq!(curr, clone);
            assert_eq!(clone, curr);
            assert_eq!(hash(curr), hash(clone));
            assert!(curr >= clone);
            assert!(clone >= curr);
            assert!(curr <= clone);
            assert!(clone <= curr);

            prev = curr;
        }
    }

    /// Serializes and deserializes an object using the canonical string representation
    #[cfg(feature = "serde")]
    #[test]
    fn it_serializes_and_deserializes_an_object_using_the_canonical_string_representation() {
        use serde_test::{assert_tokens, Token};

        let cases = [
            "00RR040G0H5T4K50QM4KBD772B",
            "00RR040G0H5T4K70QM4LDAO4GF",
            "00RR040G0H5T4K90QM4MHJITIJ",
            "00RR040G0H5T4KB0QM4MTNQHPN",
            "00RR040G0H5T4KD0QM4L2FONUL",
            "00RR040G0H5T4KF0QM4LUGFEM5",
            "00RR040G0H5T4KH0QM4MDCVGPG",
            "00RR040G0H5T4KJ0QM4MFJ3GRS",
        ];

        for e in cases {
            let obj = e.parse::<Scru128Id>().unwrap();
            assert_tokens(&obj, &[Token::String(e)]);
        }
    }
}
