//! The shape of an empty report: a summary of nothing, projected through `Summary`.
use crate::stats::Summary;

pub fn report_shape(_: &[<[[u16]] as Summary>::Output; 0]) {}

pub fn report_empty() {
    report_shape(&[]);
}
