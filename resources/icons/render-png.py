# SPDX-License-Identifier: Apache-2.0
# Renders railyard.svg to the 256 px railyard.png beside it (librsvg and cairo through ctypes).
import ctypes
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
src = os.path.join(here, "railyard.svg")
dst = os.path.join(here, "railyard.png")
size = int(sys.argv[1]) if len(sys.argv) > 1 else 256

rsvg = ctypes.CDLL("librsvg-2.so.2")
cairo = ctypes.CDLL("libcairo.so.2")
rsvg.rsvg_handle_new_from_file.restype = ctypes.c_void_p
cairo.cairo_image_surface_create.restype = ctypes.c_void_p
cairo.cairo_create.restype = ctypes.c_void_p
error = ctypes.c_void_p()
handle = rsvg.rsvg_handle_new_from_file(src.encode(), ctypes.byref(error))
if not handle:
    sys.exit("cannot read " + src)
surface = cairo.cairo_image_surface_create(0, size, size)  # CAIRO_FORMAT_ARGB32
cr = cairo.cairo_create(ctypes.c_void_p(surface))
cairo.cairo_scale(ctypes.c_void_p(cr), ctypes.c_double(size / 256.0), ctypes.c_double(size / 256.0))
if not rsvg.rsvg_handle_render_cairo(ctypes.c_void_p(handle), ctypes.c_void_p(cr)):
    sys.exit("cannot render " + src)
if cairo.cairo_surface_write_to_png(ctypes.c_void_p(surface), dst.encode()) != 0:
    sys.exit("cannot write " + dst)
