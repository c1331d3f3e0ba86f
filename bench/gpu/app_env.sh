# The GPU machine's setup and where the programs are, sourced from the repository root by
# bench/gpu/run.sh and bench/gpu/model_choice.sh (DRY=1: nothing is changed on the machine).
# Without a Vulkan loader it unpacks the .debs carried in .gl or .gl-app; it points the loader
# at NVIDIA's driver where there is one; it unpacks the whole program (.appbundle/app.tar.xz,
# bench/gpu/pack_app.sh) into $APP and puts its libraries on LD_LIBRARY_PATH.
APP=/tmp/ff-bench-app
if [ "${DRY:-0}" = 0 ]; then
  if ! ldconfig -p 2>/dev/null | grep -q libvulkan.so.1; then
    for gl in .gl .gl-app; do
      ls $gl/*.deb > /dev/null 2>&1 && { for f in $gl/*.deb; do dpkg -x "$f" /; done; ldconfig; break; }
    done
  fi
  nvidia_icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  [ -f $nvidia_icd ] && export VK_DRIVER_FILES=${VK_DRIVER_FILES:-$nvidia_icd}
  # Unpacked again when the bundle differs from the one unpacked there (a warm machine keeps /tmp).
  if [ -f .appbundle/app.tar.xz ]; then
    stamp=$(cksum < .appbundle/app.tar.xz)
    if [ ! -x $APP/bin/fieldflow ] || [ "$(cat $APP/.bundle-stamp 2> /dev/null)" != "$stamp" ]; then
      rm -rf $APP && mkdir -p $APP && tar -xJf .appbundle/app.tar.xz -C $APP && echo "$stamp" > $APP/.bundle-stamp
    fi
  fi
  [ -d $APP/lib ] && export LD_LIBRARY_PATH=$APP/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
program() { # NAME: the first of the bundles and the build that holds it
  local dir
  for dir in .bundle/bin $APP/bin build/bin; do
    [ -x "$dir/$1" ] && { echo "$dir/$1"; return; }
  done
  echo "build/bin/$1"
}
photo_dir() { # where leuvenA.jpg and graf1.png are
  local dir
  for dir in .bundle/img $APP/img /usr/share/doc/opencv-doc/examples/data; do
    [ -f "$dir/leuvenA.jpg" ] && { echo "$dir"; return; }
  done
  echo /usr/share/doc/opencv-doc/examples/data
}
PHOTOS=$(photo_dir)
